"""The generator of the shipped sample vocabularies (``python -m kgverify.sample._generator.build``).

Not in the wheel; kgverify/sample/README.md, "Regenerating", says how to run it.
"""
