"""The options several commands share, each defined once with one meaning per name.

A command takes ``json_out: Json = False``, ``collection: OptCollection = None``, a
required collection ``collection: str = CollectionOpt`` (an Annotated alias would need
the default ``...``, which mypy refuses for a ``str``). An option that means something
else in one command (a filter, a target to store under) keeps its own help there, under
a name no other command gives another meaning.

Seeds, one name per meaning (each stored with the audit it drives):

* ``--seed``: the Monte Carlo seed of the extreme-value audits (`audit best`, `claim`,
  `history`, `matrix`);
* ``--resample-seed``: the bootstrap resamples of `audit ranks`;
* ``--split-seed``: the random sub-collection splits (`reuse subcollections`, `verdict`);
* ``--topic-seed``: the shuffle of the topic order before hold-outs are assigned
  (`reuse design`, `reuse agreement`);
* ``--assignment-seed``: the random hold-out assignments of `reuse verdict`'s agreement
  analysis;
* ``--randomize-seed``: the random assignments of `reuse agreement --randomize` (its own).

A command whose seed had another name refuses the old one with the new one
(:func:`renamed`).

Light: typer, stdlib and litaudit.defaults only (imported by every command module).
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from litaudit import defaults

Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
_COLLECTION_HELP = "Collection, by its ir_datasets id or an alias (robust04)"


def collection_option(default: Any = ..., use: str = "") -> Any:
    """`--collection`/`-c`, defined once; ``use``: what this command does with it
    (``default=None``: optional; :data:`OptCollection` is the same as a type)."""
    text = _COLLECTION_HELP + (f": {use}" if use else "") + "."
    return typer.Option(default, "--collection", "-c", help=text)


CollectionOpt = collection_option()
OptCollection = Annotated[
    str | None, typer.Option("--collection", "-c", help=_COLLECTION_HELP + ".")
]
# the extreme-value audits' parameters (audit best/claim/history/summary/matrix)
Alpha = Annotated[
    float,
    typer.Option("--alpha", help="Level of the thresholds of the max and min (0 < alpha < 1)."),
]
PInterval = Annotated[
    float,
    typer.Option(
        "--p",
        help="Probability defining mu0 and the lower bound (0 < p < 0.5; interval coverage 1-2p).",
    ),
]
Trials = Annotated[
    int | None,
    typer.Option(
        "--trials",
        help=f"Monte Carlo trials (default: {defaults.MONTECARLO_TRIALS}).",
        show_default=False,
    ),
]
Seed = Annotated[
    int | None,
    typer.Option(
        "--seed",
        help=f"Monte Carlo seed (default: {defaults.MONTECARLO_SEED}).",
        show_default=False,
    ),
]
NoSave = Annotated[
    bool,
    typer.Option("--no-save", help="Do not store the audit (the database is opened read-only)."),
]


def renamed(
    old: str,
    new: str,
    meaning: str,
    elsewhere: str = "the Monte Carlo seed of the extreme-value audits",
    kind: type = int,
) -> Any:
    """A hidden ``old`` option that refuses itself, naming ``new`` (the option's name in
    this command since ``old`` was given one meaning across commands: ``elsewhere``), as
    the type of a parameter ``_old_seed: OldTopicSeed = None``, which the command never
    receives."""

    def refuse(value: object) -> None:
        if value is not None and value is not False:  # a flag (bool) unset is False
            use = new if kind is bool else f"{new} {value}"
            raise typer.BadParameter(
                f"this command's {meaning} is {new} ({old} is {elsewhere}); use {use}"
            )

    option = typer.Option(old, hidden=True, callback=refuse, expose_value=False, show_default=False)
    return Annotated[kind | None, option]


SplitSeed = Annotated[
    int | None,
    typer.Option(
        "--split-seed",
        help=f"Seed of the random sub-collection splits (default: {defaults.SUBCOLLECTION_SEED}).",
        show_default=False,
    ),
]
OldSplitSeed = renamed("--seed", "--split-seed", "seed of the random sub-collection splits")
TopicSeed = Annotated[
    int | None,
    typer.Option(
        "--topic-seed",
        help="Shuffle the topic order first, with this seed (randomized design; default: the "
        "topic order as given).",
        show_default=False,
    ),
]
OldTopicSeed = renamed("--seed", "--topic-seed", "seed of the topic shuffle")
AssignmentSeed = Annotated[
    int | None,
    typer.Option(
        "--assignment-seed",
        help="Seed of the random hold-out assignments of the agreement analysis (default: "
        f"{defaults.AGREEMENT_SEED}).",
        show_default=False,
    ),
]
OldAssignmentSeed = renamed(
    "--seed", "--assignment-seed", "seed of the random hold-out assignments"
)
ResampleSeed = Annotated[
    int,
    typer.Option("--resample-seed", help="Seed of the bootstrap resamples."),
]
OldResampleSeed = renamed("--seed", "--resample-seed", "seed of the bootstrap resamples")

# short flags with one meaning across commands: -m is --measure, -k --depth, -o --output
OldSitesFlag = renamed("-m", "--sites", "number of sites", "--measure elsewhere")
OldHeldOutFlag = renamed("-k", "--held-out", "sites held out of each topic", "--depth elsewhere")
OldObservedFlag = renamed("-o", "--observed", "observed counts", "--output elsewhere", str)

# the reusability commands' sub-collection test (reuse subcollections, reuse verdict)
SplitOpt = typer.Option(
    "prefix",
    "--split",
    help="Sub-collections: 'prefix' (docno's leading letters), 'prefix:FBIS,FR94,FT,LA' "
    "(listed prefixes) or a FILE of 'docno sub-collection' lines.",
)
PermOpt = typer.Option(
    defaults.SUBCOLLECTION_PERMUTATIONS,
    "--permutations",
    "-R",
    min=1,
    help="Random splits for the randomization test.",
)
WorkersOpt = typer.Option(
    0, "--workers", min=0, help="Threads for the randomization test (0: one per core, max 2)."
)


def workers_of(n: int) -> int:
    """--workers: 0 is one thread per core, at most 2."""
    return n or max(1, min(2, os.cpu_count() or 1))


# the measure: one option, one meaning (a measure by any of its names), each command's
# default and use said in its help
MEASURE_HELP = "Measure, by its ir_measures or trec_eval name (AP, MAP, P@10, P_10, nDCG@20, ...)"


def measure_option(default: Any = ..., use: str = "") -> Any:
    """`--measure`/`-m`, defined once; ``use``: what this command does with it."""
    return typer.Option(
        default, "--measure", "-m", help=MEASURE_HELP + (f": {use}" if use else "") + "."
    )


MeasureOpt = measure_option()
MeasureFilter = measure_option(None, "only results of this measure (default: all)")
MethodOpt = typer.Option("exact", "--method", help="exact | montecarlo (the paper's sampling).")


def se_option(values: str) -> Any:
    """`--se`, defined once: the standard error of one result; ``values``: what it takes here."""
    return typer.Option(
        None, "--se", help=f"Standard error of one result: {values}", show_default=False
    )


SeOpt = se_option(
    "measured (from a stored run archive's per-topic scores, else the store's reference "
    "noise; 'interaction' is its older name), bound (sqrt(m(1-m)/n) of a measure between 0 "
    "and 1), model (sd/sqrt(n)), or a value such as 0.0059 (default: measured where stored, "
    "else bound, else model)."
)

# published results (results list/show/export and the commands that write them)
ID_HELP = "Result id: the local number, or the uid every clone shares (r-...)."
IDS_HELP = "Result ids: local numbers, or uids every clone shares (r-...)."

# the options below are each defined once here, used by several commands; a factory takes
# the command's default and what the command does with the option (its help's tail)


def _help(meaning: str, use: str) -> str:
    return meaning + (f": {use}" if use else "") + "."


def output_option(default: Any, use: str) -> Any:
    """`--output`/`-o`: the file a command writes; ``use``: what it writes there."""
    return typer.Option(
        default, "--output", "-o", help=_help("File to write", use), show_default=False
    )


def run_option(use: str) -> Any:
    """`--run`: a TREC run file (a stored run is named by its tag: `runs eval --run-tag`)."""
    return typer.Option(None, "--run", help=_help("A TREC run file", use), show_default=False)


def against_option(use: str) -> Any:
    """`--against`: archive runs to compare a claim's run with on the same topics."""
    meaning = "Archive run to compare the claim's run with on the same topics (repeatable)"
    return typer.Option(None, "--against", help=_help(meaning, use), show_default=False)


BaselineOpt = typer.Option(
    None, "--baseline", help="The paper's baseline value, as printed.", show_default=False
)
BaselineSystemOpt = typer.Option(
    None,
    "--baseline-system",
    help="The baseline's model (BM25, ...), to find its reproductions.",
    show_default=False,
)


def claim_option(use: str) -> Any:
    """`--claim`: a claimed value, as printed."""
    meaning = "A claimed value, as printed (0.3100 keeps its 4 digits)"
    return typer.Option(None, "--claim", help=_help(meaning, use), show_default=False)


DryRunOpt = typer.Option(False, "--dry-run", help="Validate and show each change; write nothing.")
WhoOpt = typer.Option(
    None, "--who", help="Curator name (default: $LITAUDIT_USER or login).", show_default=False
)
SetOpt = typer.Option(..., "--set", help="FIELD=VALUE (repeatable).")
ConsistencyOpt = typer.Option(
    "flag",
    "--consistency",
    help="Values their measure's arithmetic does not allow (P@k over n topics not a multiple "
    "of 1/(k n) at its digits, out of range, R@100 above R@1000; see `results consistency`): "
    "flag (listed) | refuse (problems, exit 1) | off.",
)


def qrels_option(use: str) -> Any:
    """`--qrels`: a qrels file (topic iter docno rel)."""
    meaning = "Qrels file (topic iter docno rel)"
    return typer.Option(None, "--qrels", help=_help(meaning, use), show_default=False)


# the reusability commands' score matrix (reuse agreement, reuse verdict)
ScoresOpt = typer.Option(
    None,
    "--scores",
    help="Per-topic score matrix CSV (topics x runs) instead of run files or a stored archive.",
    show_default=False,
)
RunSitesOpt = typer.Option(
    None, "--run-sites", help="With --scores: CSV run,site.", show_default=False
)
PseudoSitesOpt = typer.Option(
    None,
    "--pseudo-sites",
    help="With --scores: group runs into M pseudo-sites of adjacent runs.",
    show_default=False,
)


def subcollections_option(use: str) -> Any:
    """`--subcollections`: the sub-collection test of Sanderson et al. (2012)."""
    meaning = "The sub-collection test (Sanderson et al. 2012)"
    return typer.Option(False, "--subcollections", help=_help(meaning, use))


def reproductions_option(use: str) -> Any:
    """`--with-reproductions`: the reproductions too, not only the published results."""
    meaning = "The reproductions too (default: the published results only)"
    return typer.Option(False, "--with-reproductions", help=_help(meaning, use))


_DATE_FORMS = "YYYY, YYYY-MM or YYYY-MM-DD"


def since_option(use: str) -> Any:
    """`--since`: a lower bound of the dates of what the command lists (inclusive)."""
    return typer.Option(None, "--since", help=_help(f"On or after a date ({_DATE_FORMS})", use))


def until_option(use: str) -> Any:
    """`--until`: an upper bound of the dates of what the command lists (inclusive)."""
    return typer.Option(None, "--until", help=_help(f"On or before a date ({_DATE_FORMS})", use))


def years_option(use: str, *also: str) -> Any:
    """`--years`: YEAR or FROM-TO; ``also``: a command's other names of it."""
    return typer.Option(None, "--years", *also, help=_help("YEAR or FROM-TO", use))


REPORTERS = "authors, nist, leaderboard, mteb, pyserini, unknown"


def reporter_option(use: str) -> Any:
    """`--reporter`: who reported a value."""
    text = f"Who reported the value: {REPORTERS}" + (f" ({use})" if use else "") + "."
    return typer.Option(None, "--reporter", help=text, show_default=False)


def alpha_option(default: Any, use: str) -> Any:
    """`--alpha`: a significance level (0 < alpha < 1); ``use``: of which tests."""
    return typer.Option(default, "--alpha", help=_help("Significance level", use))


def depth_option(default: Any, use: str, short: str = "-k") -> Any:
    """`--depth`/`-k`: a pool depth K (a run 'retrieves' its top K documents per topic);
    ``short``: `reuse agreement` keeps -d (its -k is --held-out's old flag, refused)."""
    meaning = "Pool depth K (a run's top K documents per topic)"
    return typer.Option(default, "--depth", short, min=1, help=_help(meaning, use))


def all_option(use: str) -> Any:
    """`--all`: show every row, not only the first or the notable ones."""
    return typer.Option(False, "--all", help=_help("Show every row", use))


def topics_option(default: Any, use: str, *short: str) -> Any:
    """`--topics`: a topic set by its size (the number of topics, N); the population filter
    also takes a topic set's name. A subset of topic ids is `--topic-ids`."""
    meaning = "The topic set, by its number of topics"
    return typer.Option(default, "--topics", *short, help=_help(meaning, use), show_default=False)


def format_option(default: Any, use: str, *short: str) -> Any:
    """`--format`: the format a command writes; the format of FILES read is `--input-format`."""
    return typer.Option(default, "--format", *short, help=_help("Output format", use))


InputFormatOpt = typer.Option("csv", "--input-format", help="Format of FILES: csv | trec_eval.")

# long names with one meaning across commands: where an option had another meaning under a
# shared name, it has a name of its own and the old one is refused, naming the new one
OldRunTag = renamed("--run", "--run-tag", "choice of stored runs", "a run file elsewhere", str)
OldBaselineTopics = renamed(
    "--baseline",
    "--baseline-topics",
    "number of all-site baseline topics",
    "a paper's baseline value elsewhere",
)
OldInputFormat = renamed(
    "--format", "--input-format", "format of FILES", "an output format elsewhere", str
)
OldWholeArchive = renamed(
    "--all", "--whole-archive", "deletion of a whole archive", "'show every row' elsewhere", bool
)
OldTopicIds = renamed(
    "--topics",
    "--topic-ids",
    "subset of topics",
    "a topic set by its number of topics elsewhere",
    str,
)
OldCitation = renamed(
    "--source",
    "--citation",
    "citation of the depth",
    "a result's source, papers | official, elsewhere",
    str,
)
