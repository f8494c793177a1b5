"""Typed rows (SQLModel) for the tables of ``schema/``.

The DDL lives in ``schema/*.sql`` only (the one source of truth; duckdb_engine could not
create SERIAL keys anyway); these classes mirror it, and ``tests/store/test_store.py``
checks that models and tables agree. Float columns are declared DOUBLE explicitly so
values never round-trip through float32.

What is validated, and when: ``Model.model_validate(...)`` checks each field's type and
the rules below (the DDL's CHECKs, so that a bad row is refused with a sentence naming
the field before DuckDB sees it, through :func:`validated`); it runs on the paper
``papers add`` and ``papers edit`` write (:mod:`litaudit.store.papers`). SQLModel's table classes do *not* validate in their
constructor (``Paper(year=3000)`` is accepted): build them with ``model_validate``.
Results and history entries are written in bulk (an import's or ``init``'s 34k) and not
validated through these classes: ``model_validate`` of the seeded database's 34,495
results takes 2.7 s of CPU and of its 34,625 history entries 1.4 s, and importing
SQLModel 0.6 s, against ~3 s for a whole ``init``. Their fields were checked by
:mod:`litaudit.curation.plan` (and :mod:`litaudit.store.history`'s own checks), and the
table's CHECKs still hold them. A DOI's or URL's shape is not checked.

- Paper: bibkey and citation not blank; year 1950-2100 or none.
- Result: source, role, status, run type among the schema's values; year 1950-2100;
  n_topics above 0; value_text, system, transcribed_by not blank; a paper result names
  its paper, an official one its track.
- History: entity and action among the schema's values; who not blank.
"""

from __future__ import annotations

import datetime as dt

import pydantic
from pydantic import field_validator, model_validator
from sqlalchemy import ARRAY, Column, Double, String
from sqlmodel import Field, SQLModel

from litaudit.errors import LitauditError
from litaudit.store import paper_rules
from litaudit.store.history import ACTIONS, ENTITIES

# the values the schema's CHECKs allow (001, 006, 007)
SOURCES = ("paper", "official")
ROLES = ("proposed", "baseline", "official", "reproduction", "leaderboard")
STATUSES = ("draft", "verified", "retracted")
RUN_TYPES = ("automatic", "manual")
YEARS = paper_rules.YEARS


def _one_of(value, allowed: tuple[str, ...], what: str):
    if value is not None and value not in allowed:
        raise ValueError(f"{what} {value!r} is not one of {', '.join(allowed)}")
    return value


_year = paper_rules.in_years
_not_blank = paper_rules.not_blank


def _double(nullable: bool = False):
    return Field(sa_column=Column(Double, nullable=nullable))


class Collection(SQLModel, table=True):
    __tablename__ = "collections"
    id: str = Field(primary_key=True)
    name: str
    title: str
    documents: str
    ir_datasets: bool = False
    notes: str | None = None
    provenance: str | None = None  # schema 003


class CollectionAlias(SQLModel, table=True):
    __tablename__ = "collection_aliases"
    alias: str = Field(primary_key=True)
    collection_id: str


class TopicSet(SQLModel, table=True):
    __tablename__ = "topic_sets"
    collection_id: str = Field(primary_key=True)
    name: str = Field(primary_key=True)
    n_topics: int
    is_default: bool = False
    description: str | None = None
    # collections whose equal-weight mean the results are (schema 010), else None
    parts: list[str] | None = Field(default=None, sa_column=Column(ARRAY(String), nullable=True))


class Measure(SQLModel, table=True):
    __tablename__ = "measures"
    name: str = Field(primary_key=True)
    family: str
    cutoff: int | None = None
    min_value: float = _double()
    max_value: float = _double()
    description: str


class MeasureAlias(SQLModel, table=True):
    __tablename__ = "measure_aliases"
    alias: str = Field(primary_key=True)
    measure: str


class Paper(SQLModel, table=True):
    __tablename__ = "papers"
    id: int | None = Field(default=None, primary_key=True)
    bibkey: str
    citation: str
    title: str | None = None
    authors: str | None = None
    venue: str | None = None
    year: int | None = None
    doi: str | None = None
    url: str | None = None
    tags: str | None = None
    notes: str | None = None
    created_at: dt.datetime | None = None

    @field_validator("bibkey", "citation")
    @classmethod
    def _named(cls, v, info):
        return _not_blank(v, info.field_name)

    @field_validator("year")
    @classmethod
    def _in_range(cls, v):
        return _year(v)

    @field_validator("url")
    @classmethod
    def _web(cls, v):
        return paper_rules.web_url(v)


class Result(SQLModel, table=True):
    __tablename__ = "results"
    id: int | None = Field(default=None, primary_key=True)
    source: str
    paper_id: int | None = None
    track: str | None = None
    collection_id: str
    topic_set: str | None = None
    n_topics: int
    measure: str
    value: float = _double()
    value_text: str
    system: str
    participant: str | None = None
    role: str
    run_type: str | None = None
    year: int
    standard: bool = True
    location: str | None = None
    transcribed_by: str
    transcribed_at: dt.date
    status: str = "draft"
    notes: str | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    date: dt.date | None = None  # schema 003
    reporter: str | None = None
    url: str | None = None
    code_url: str | None = None
    uid: str | None = None  # the identity every clone shares (schema 017)

    @field_validator("source", "role", "status", "run_type")
    @classmethod
    def _allowed(cls, v, info):
        allowed = {"source": SOURCES, "role": ROLES, "status": STATUSES, "run_type": RUN_TYPES}
        return _one_of(v, allowed[info.field_name], info.field_name)

    @field_validator("year")
    @classmethod
    def _in_range(cls, v):
        return _year(v)

    @field_validator("n_topics")
    @classmethod
    def _positive(cls, v):
        if v <= 0:
            raise ValueError(f"n_topics must be above 0, got {v}")
        return v

    @field_validator("value_text", "system", "transcribed_by")
    @classmethod
    def _named(cls, v, info):
        return _not_blank(v, info.field_name)

    @model_validator(mode="after")
    def _cited(self):
        if self.source == "paper" and self.paper_id is None:
            raise ValueError("a result of a paper names its paper (paper_id)")
        if self.source == "official" and not self.track:
            raise ValueError("an official result names its track")
        return self


class History(SQLModel, table=True):
    __tablename__ = "history"
    id: int | None = Field(default=None, primary_key=True)
    entity: str
    entity_id: int
    action: str
    field: str | None = None
    old_value: str | None = None
    new_value: str | None = None
    reason: str | None = None
    who: str
    changed_at: dt.datetime | None = None

    @field_validator("entity")
    @classmethod
    def _entity(cls, v):
        return _one_of(v, ENTITIES, "entity")

    @field_validator("action")
    @classmethod
    def _action(cls, v):
        return _one_of(v, ACTIONS, "action")

    @field_validator("who")
    @classmethod
    def _who(cls, v):
        return _not_blank(v, "who")


class Audit(SQLModel, table=True):
    __tablename__ = "audits"
    id: int | None = Field(default=None, primary_key=True)
    kind: str
    collection_id: str
    measure: str | None = None
    params: str
    method: str
    seed: int | None = None
    trials: int | None = None
    input_fingerprint: str
    software_version: str
    result: str
    created_at: dt.datetime | None = None
    code_digest: str | None = None  # schema 011


ALL_MODELS = [
    Collection,
    CollectionAlias,
    TopicSet,
    Measure,
    MeasureAlias,
    Paper,
    Result,
    History,
    Audit,
]


def validated(model, data: dict, what: str):
    """``model.model_validate(data)``, or :class:`~litaudit.errors.LitauditError` naming
    ``what`` and the first field refused: ``paper 'x': year: year 3000 is out of range
    1950-2100``."""

    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        named = not where or msg.startswith(where)
        raise LitauditError(f"{what}: {msg if named else f'{where}: {msg}'}") from None
