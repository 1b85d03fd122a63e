"""The shipped sample: vocabulary releases, an OMOP EHR extract, relations and dialogues."""
