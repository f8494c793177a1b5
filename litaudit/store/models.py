"""Typed rows (SQLModel) for the tables of ``schema/``.

The DDL lives in ``schema/*.sql`` only (the one source of truth; duckdb_engine could not
create SERIAL keys anyway), rows are read with DuckDB and validated into these classes
(``Store.fetch``); they mirror the DDL, and ``tests/test_store.py`` checks that models and tables agree.
Float columns are declared DOUBLE explicitly so values never round-trip through float32.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ARRAY, Column, Double, String
from sqlmodel import Field, SQLModel


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
