"""Abbreviation expansion from context with scispaCy's ``AbbreviationDetector``
(Schwartz & Hearst): in "acute myocardial infarction (MI) ... MI", the mention "MI" is looked
up as "acute myocardial infarction". Only a tokenizer is needed, so the pipeline is a blank
English one: no model download, nothing to fail offline."""

from __future__ import annotations

import hashlib
import warnings
from functools import cached_property

import scispacy.abbreviation  # noqa: F401  (registers the abbreviation_detector factory)
import spacy
from spacy.language import Language


class AbbreviationExpander:
    """Long forms of the abbreviations defined in a context text (cached per text)."""

    def __init__(self, max_cached: int = 4096) -> None:
        self._cache: dict[str, dict[str, str]] = {}
        self._max = max_cached

    @cached_property
    def nlp(self) -> Language:
        nlp = spacy.blank("en")
        nlp.add_pipe("abbreviation_detector")
        return nlp

    def definitions(self, context: str) -> dict[str, str]:
        """Short form -> long form for every abbreviation defined in ``context``."""
        # Keyed by a digest so the cache never keeps patient text as a dict key.
        digest = hashlib.sha256(context.encode()).hexdigest()
        found = self._cache.get(digest)
        if found is None:
            with warnings.catch_warnings():
                # scispaCy runs its second matcher even when it has no patterns (W036).
                warnings.filterwarnings("ignore", message=r"\[W036\]")
                doc = self.nlp(context)
            found = {
                short.text: str(short._.long_form)
                for short in doc._.abbreviations
                if short._.long_form is not None
            }
            if len(self._cache) >= self._max:
                self._cache.clear()
            self._cache[digest] = found
        return found

    def expand(self, mention: str, context: str | None) -> str | None:
        """The long form of ``mention`` if the context defines it as an abbreviation."""
        if not context:
            return None
        return self.definitions(context).get(mention.strip())
