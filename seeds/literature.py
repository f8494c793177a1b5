"""Published results of papers since 2019 (TREC DL, MS MARCO, BEIR) from authors' repositories.

A developer script, never run by `litaudit init`: it writes ``seeds/results/literature.csv.gz``
(the results import format) and ``seeds/literature_lines.csv.gz``, the source lines every
value was read from (repository, path, commit, line, the date git blame gives the line at
that commit, and the line's text), so that each value can be re-read without the sources.

    python seeds/literature.py                   # read the mirrors, rewrite both files
    python seeds/literature.py --check           # exit 1 if the files are out of date
    python seeds/literature.py --from-lines      # rebuild the CSV from the kept lines only
    python seeds/literature.py --mirrors DIR     # mirrors elsewhere (default /work/.mirror)

A mirror is a bare git directory ``DIR/<owner>+<name>/repo`` (what the project's
``fetch`` tool makes); each source is read at its pinned commit with ``git show``, never
at HEAD. Without the mirrors, ``--check`` and the tests rebuild the CSV from the kept
lines, which is the same code path after the read.

What is read (``TABLES`` and ``LINES`` below): Markdown tables whose header names the
measure and whose rows name the system, and trec_eval output lines (``ndcg_cut_10 all
0.7655``) under the command that names the run and the topics. Values are the printed
text; a table printed in percent (71.7) is divided by 100 textually (0.717, the same
digits) and noted. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import re
import subprocess
import sys
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from litaudit.curation.rows import COLUMNS as RESULT_COLUMNS

SEEDS = Path(__file__).resolve().parent
OUT_CSV = SEEDS / "results" / "literature.csv.gz"
LINES_CSV = SEEDS / "literature_lines.csv.gz"  # gzipped since 606 rows: seeds/ < 3 MB
DEFAULT_MIRRORS = Path("/work/.mirror")
COLUMNS = list(RESULT_COLUMNS)
LINE_COLUMNS = ["repo", "path", "commit", "line", "date", "text"]
TRANSCRIBED_BY = "litaudit seeds (literature.py)"
TRANSCRIBED_AT = "2026-11-27"

# collection id -> (topic set, topics), as seeds/collections.json has them
COLLECTIONS: dict[str, tuple[str, int]] = {
    "msmarco-passage/dev/small": ("dev/small", 6980),
    "msmarco-passage/eval/small": ("eval/small", 6837),
    "msmarco-document/dev": ("dev", 5193),
    "msmarco-passage/trec-dl-2019/judged": ("judged", 43),
    "msmarco-passage/trec-dl-2020/judged": ("judged", 54),
    "msmarco-document/trec-dl-2019/judged": ("judged", 43),
    "msmarco-document/trec-dl-2020/judged": ("judged", 45),
    "msmarco-passage-v2/trec-dl-2021/judged": ("judged", 53),
    "msmarco-passage-v2/trec-dl-2022/judged": ("judged", 76),
    "beir/arguana": ("test", 1406),
    "beir/climate-fever": ("test", 1535),
    "beir/dbpedia-entity/test": ("test", 400),
    "beir/fever/test": ("test", 6666),
    "beir/fiqa/test": ("test", 648),
    "beir/hotpotqa/test": ("test", 7405),
    "beir/msmarco/dev": ("dev", 6980),
    "beir/nfcorpus/test": ("test", 323),
    "beir/nq": ("test", 3452),
    "beir/quora/test": ("test", 10000),
    "beir/scidocs": ("test", 1000),
    "beir/scifact/test": ("test", 300),
    "beir/webis-touche2020/v2": ("test", 49),
    "beir/trec-covid": ("test", 50),
    "beir/mean": ("15-datasets", 53359),
    "disks45/nocr/trec-robust-2004": ("judged", 249),
    "beir/trec-news": ("test", 57),
    "beir/robust04": ("test", 249),
    "beir/signal1m": ("test", 97),
    "beir/bioasq": ("test", 500),
    "beir/cqadupstack": ("12-forums", 13145),
    "beir/18": ("18-datasets", 47282),
    "beir/13": ("13-datasets", 33234),
}

DL19P = "msmarco-passage/trec-dl-2019/judged"
DL20P = "msmarco-passage/trec-dl-2020/judged"
DL19D = "msmarco-document/trec-dl-2019/judged"
DEVP = "msmarco-passage/dev/small"
DEVD = "msmarco-document/dev"

# BEIR column names as the tables print them -> collection ids
BEIR_NAMES = {
    "TREC-COVID": "beir/trec-covid",
    "NFCorpus": "beir/nfcorpus/test",
    "NQ": "beir/nq",
    "HotpotQA": "beir/hotpotqa/test",
    "FiQA-2018": "beir/fiqa/test",
    "ArguAna": "beir/arguana",
    "Touche-2020": "beir/webis-touche2020/v2",
    "Quora": "beir/quora/test",
    "DBPedia": "beir/dbpedia-entity/test",
    "SCIDOCS": "beir/scidocs",
    "FEVER": "beir/fever/test",
    "Climate-FEVER": "beir/climate-fever",
    "SciFact": "beir/scifact/test",
}


@dataclass(frozen=True)
class Paper:
    bibkey: str
    citation: str
    title: str
    authors: str
    venue: str
    year: int
    url: str
    tags: str = ""


@dataclass(frozen=True)
class Source:
    """One file of a repository at a commit; ``cite`` are the lines that name the paper
    (kept, so that the title can be checked against them)."""

    repo: str
    path: str
    commit: str
    cite: tuple[int, ...] = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.repo, self.path, self.commit)


@dataclass(frozen=True)
class Table:
    """A Markdown table: the header line, the value lines, and per header cell the
    collection and measure (and a suffix for the system when the column is a setting,
    e.g. re-ranking vs retrieval). Rows not named in ``roles`` are baselines."""

    source: Source
    paper: Paper
    header: int
    rows: tuple[int, int]
    columns: dict[str | int, tuple[str, str, str]]  # header text, or cell index
    proposed: frozenset[str] = frozenset()
    percent: bool = False
    system: str = ""  # a one-row table without a system column
    suffix: str = ""  # appended to every system name of the table
    code_names: bool = False  # the system is the row's code spans (`a` + `b`)
    sections: bool = False  # a row with no value names the section of the rows below
    section_roles: dict[str, str] = field(default_factory=dict)  # section -> role
    evidence_from: tuple[tuple[Source, int], ...] = ()  # lines of another file (kept)
    system_from: tuple[int, ...] = (0,)  # the cells that name the system (joined by ' + ')
    role: str = ""  # every row's role (else proposed / baseline as above)
    row_collections: dict[str, str] = field(default_factory=dict)  # row label -> collection
    evidence: tuple[int, ...] = ()  # lines saying what the table is (kept)
    note: str = ""


@dataclass(frozen=True)
class Line:
    """A value on a free-text line (trec_eval output): ``pattern`` has a group ``v``."""

    source: Source
    paper: Paper
    line: int
    pattern: str
    collection: str
    measure: str
    system: str
    role: str
    evidence: tuple[int, ...] = ()
    note: str = ""
    percent: bool = False


# ---------------------------------------------------------------- papers and sources
# Each paper's title and authors are those of the citation lines of its source (``cite``),
# kept with the values; the test checks the title against them.
def _src(repo: str, path: str, commit: str, *cite: int) -> Source:
    return Source(repo, path, commit, tuple(cite))


DRHARD_C = "15e22359e70bccfb0b7b5ddf9c050161efc93607"
ANCE_C = "c8439dfc9ab178457dd359d2ed7c403f2f3d7b6f"
SPLADE_C = "8dcd33a054d790e74aceda25b128c1b188c5d9c1"
ST_C = "85ec64559f4414aa536eca4bf53538291e0a333f"

DRHARD = _src("jingtaozhan/DRhard", "README.md", DRHARD_C, 1, 2, 8)
DRHARD_DATA = _src("jingtaozhan/DRhard", "download_data.sh", DRHARD_C)
JPQ = _src(
    "jingtaozhan/JPQ", "README.md", "5c2fd8015eb15605ea76e6728b574cfab546766f", 218, 219, 220
)
ANCE = _src("microsoft/ANCE", "README.md", ANCE_C, 1, 2, 4)
ANCE_DATA = _src("microsoft/ANCE", "commands/data_download.sh", ANCE_C)
SPLADE = _src("naver/splade", "README.md", SPLADE_C, 220, 221, 239, 241, 252, 253, 274, 275)
LIT5 = _src(
    "castorini/LiT5", "README.md", "6f6aca2547e59499f1f58f49ce92f88ff2d6cf16", 94, 95, 96, 97
)
ST_CE = _src("UKPLab/sentence-transformers", "docs/pretrained-models/ce-msmarco.md", ST_C, 1)
ST_V3 = _src("UKPLab/sentence-transformers", "docs/pretrained-models/msmarco-v3.md", ST_C, 1)
ST_V5 = _src("UKPLab/sentence-transformers", "docs/pretrained-models/msmarco-v5.md", ST_C, 1)
BGE = _src(
    "FlagOpen/FlagEmbedding",
    "research/baai_general_embedding/README.md",
    "7ed43d67ec03fbe5c31c0992dbfa941fb1860549",
    261,
    262,
    263,
)
D2Q = _src("castorini/docTTTTTquery", "README.md", "581539a7737a473739b1e3465df7d7e4e7203ede", 25)
SETWISE = _src(
    "ielab/llm-rankers", "README.md", "b36517bf17a3956dc56c4c967f972d02390b1cdd", 377, 378, 379
)
RANKLLAMA = _src(
    "texttron/tevatron",
    "examples/rankllama/README.md",
    "dd063104c81a76d6a77c845f667b46b9e5abd625",
    89,
    90,
    92,
)
SIMLM = _src(
    "microsoft/unilm",
    "simlm/README.md",
    "768a3c873f598bb9b4d4dfb9267b099e35f8fe56",
    5,
    *range(228, 241),
)

SPLADE_ST = _src(
    "naver/splade",
    "training_with_sentence_transformers/README.md",
    "eb74d1ab31c42b9b94df7c0d67cc582b2c972dda",
)
TILDE_C = "9751709fed9c56a1fd2be4170597fe6b8f530a5a"
TILDE = _src("ielab/TILDE", "README.md", TILDE_C, 2)
TILDE2 = _src("ielab/TILDE", "TILDEv2/README.md", TILDE_C, 2, 3)
COSTA = _src(
    "Albert-Ma/COSTA", "README.md", "3e431d474afbbc1b8ed7fb5091b3203fe1fde6ab", 2, 162, 163
)
PRPGRAPH = _src("Memelank/PRP-Graph", "README.md", "968e45ee8178f5d3ac44a2b8f11f091af69206d7", 5)
DEAR = _src(
    "DataScienceUIBK/DeAR-Reranking",
    "README.md",
    "c31c73985f0f7546ef7598a3c8815ef6594a6190",
    21,
    530,
    531,
    533,
)
OM2_C = "8330192a607ecd66610bb82b6c8e408600def9a8"
OM2_TELE = _src(
    "OpenMatch/OpenMatch",
    "docs/models/ance-tele_msmarco_qry-psg-encoder.md",
    OM2_C,
    9,
    26,
    27,
    28,
    29,
)
OM2_TELE_COCO = _src(
    "OpenMatch/OpenMatch", "docs/models/ance-tele_coco-base_msmarco_qry-psg-encoder.md", OM2_C
)
OM2_DPR = _src("OpenMatch/OpenMatch", "docs/models/dpr_bert-base_msmarco_qry-psg-encoder.md", OM2_C)
OM2_T5 = _src("OpenMatch/OpenMatch", "docs/models/t5-ance.md", OM2_C)
CONTRIEVER = _src(
    "facebookresearch/contriever",
    "README.md",
    "39fb2201450cdba1648183737ed56d6b1bc33778",
    782,
    786,
    787,
    788,
    789,
)
OPENMATCH_C = "fbf198ad5353e35b8b67ea7539783db61b32d1f2"
OPENMATCH = _src("thunlp/OpenMatch", "v1/README.md", OPENMATCH_C, 259, 260, 261, 262)
OPENMATCH_ADHOC = _src("thunlp/OpenMatch", "v1/docs/experiments-adhoc.md", OPENMATCH_C)
OPENMATCH_MARCO = _src("thunlp/OpenMatch", "v1/docs/experiments-msmarco.md", OPENMATCH_C)

P_DRHARD = Paper(
    "zhan2021sigir",
    "Zhan et al. (SIGIR 2021)",
    "Optimizing Dense Retrieval Model Training with Hard Negatives",
    "Jingtao Zhan, Jiaxin Mao, Yiqun Liu, Jiafeng Guo, Min Zhang, Shaoping Ma",
    "SIGIR",
    2021,
    "https://arxiv.org/abs/2104.08051",
    "dense",
)
P_JPQ = Paper(
    "zhan2021cikm",
    "Zhan et al. (CIKM 2021)",
    "Jointly Optimizing Query Encoder and Product Quantization to Improve Retrieval Performance",
    "Jingtao Zhan, Jiaxin Mao, Yiqun Liu, Jiafeng Guo, Min Zhang, Shaoping Ma",
    "CIKM",
    2021,
    "https://doi.org/10.1145/3459637.3482358",
    "dense",
)
P_ANCE = Paper(
    "xiong2021iclr",
    "Xiong et al. (ICLR 2021)",
    "Approximate Nearest Neighbor Negative Contrastive Learning for Dense Text Retrieval",
    "Lee Xiong, Chenyan Xiong, Ye Li, Kwok-Fung Tang, Jialin Liu, Paul Bennett, Junaid Ahmed, "
    "Arnold Overwijk",
    "ICLR",
    2021,
    "https://arxiv.org/pdf/2007.00808.pdf",
    "dense",
)
P_SPLADE2 = Paper(
    "formal2021arxiv",
    "Formal et al. (arXiv 2021)",
    "SPLADE v2: Sparse Lexical and Expansion Model for Information Retrieval",
    "Thibault Formal, Carlos Lassance, Benjamin Piwowarski, Stéphane Clinchant",
    "arXiv",
    2021,
    "https://arxiv.org/abs/2109.10086",
    "sparse",
)
P_SPLADEPP = Paper(
    "formal2022sigir",
    "Formal et al. (SIGIR 2022)",
    "From Distillation to Hard Negative Sampling: Making Sparse Neural IR Models More Effective",
    "Thibault Formal, Carlos Lassance, Benjamin Piwowarski, Stéphane Clinchant",
    "SIGIR",
    2022,
    "https://doi.org/10.1145/3477495.3531857",
    "sparse",
)
P_SPLADE_EFF = Paper(
    "lassance2022sigir",
    "Lassance and Clinchant (SIGIR 2022)",
    "An Efficiency Study for SPLADE Models",
    "Carlos Lassance, Stéphane Clinchant",
    "SIGIR",
    2022,
    "https://doi.org/10.1145/3477495.3531833",
    "sparse",
)
P_LIT5 = Paper(
    "tamber2023arxiv",
    "Tamber et al. (arXiv 2023)",
    "Scaling Down, LiTting Up: Efficient Zero-Shot Listwise Reranking with Seq2seq "
    "Encoder-Decoder Models",
    "Manveer Singh Tamber, Ronak Pradeep, Jimmy Lin",
    "arXiv",
    2023,
    "https://arxiv.org/abs/2312.16098",
    "llm-reranking",
)
P_ST_CE = Paper(
    "sbert2021cemsmarco",
    "sentence-transformers (MS MARCO Cross-Encoders)",
    "MS MARCO Cross-Encoders",
    "",
    "sentence-transformers documentation",
    2021,
    f"https://github.com/UKPLab/sentence-transformers/blob/{ST_C}/docs/pretrained-models/ce-msmarco.md",
    "documentation",
)
P_ST_V3 = Paper(
    "sbert2021msmarcov3",
    "sentence-transformers (MSMARCO Models, v3)",
    "MSMARCO Models",
    "",
    "sentence-transformers documentation",
    2021,
    f"https://github.com/UKPLab/sentence-transformers/blob/{ST_C}/docs/pretrained-models/msmarco-v3.md",
    "documentation dense",
)
P_ST_V5 = Paper(
    "sbert2021msmarcov5",
    "sentence-transformers (MSMARCO Models, v5)",
    "MSMARCO Models",
    "",
    "sentence-transformers documentation",
    2021,
    f"https://github.com/UKPLab/sentence-transformers/blob/{ST_C}/docs/pretrained-models/msmarco-v5.md",
    "documentation dense",
)
P_BGE = Paper(
    "xiao2023arxiv",
    "Xiao et al. (arXiv 2023)",
    "C-Pack: Packaged Resources To Advance General Chinese Embedding",
    "Shitao Xiao, Zheng Liu, Peitian Zhang, Niklas Muennighoff",
    "arXiv",
    2023,
    "https://arxiv.org/abs/2309.07597",
    "dense",
)
P_D2Q = Paper(
    "nogueira2019docttttt",
    "Nogueira and Lin (2019)",
    "From doc2query to docTTTTTquery",
    "Rodrigo Nogueira, Jimmy Lin",
    "report",
    2019,
    "https://cs.uwaterloo.ca/~jimmylin/publications/Nogueira_Lin_2019_docTTTTTquery-v2.pdf",
    "expansion",
)
P_SETWISE = Paper(
    "zhuang2024sigir",
    "Zhuang et al. (SIGIR 2024)",
    "A Setwise Approach for Effective and Highly Efficient Zero-shot Ranking with Large "
    "Language Models",
    "Shengyao Zhuang, Honglei Zhuang, Bevan Koopman, Guido Zuccon",
    "SIGIR",
    2024,
    "https://arxiv.org/abs/2310.09497",
    "llm-reranking",
)
P_RANKLLAMA = Paper(
    "ma2023arxiv",
    "Ma et al. (arXiv 2023)",
    "Fine-Tuning LLaMA for Multi-Stage Text Retrieval",
    "Xueguang Ma, Liang Wang, Nan Yang, Furu Wei, Jimmy Lin",
    "arXiv",
    2023,
    "https://arxiv.org/abs/2310.08319",
    "llm-reranking",
)
P_SIMLM = Paper(
    "wang2023acl",
    "Wang et al. (ACL 2023)",
    "SimLM: Pre-training with Representation Bottleneck for Dense Passage Retrieval",
    "Liang Wang, Nan Yang, Xiaolong Huang, Binxing Jiao, Linjun Yang, Daxin Jiang, "
    "Rangan Majumder, Furu Wei",
    "ACL",
    2023,
    "https://aclanthology.org/2023.acl-long.125.pdf",
    "dense",
)

P_OPENMATCH = Paper(
    "liu2021sigir",
    "Liu et al. (SIGIR 2021)",
    "OpenMatch: An Open Source Library for Neu-IR Research",
    "Zhenghao Liu, Kaitao Zhang, Chenyan Xiong, Zhiyuan Liu, Maosong Sun",
    "SIGIR",
    2021,
    "https://github.com/thunlp/OpenMatch",
    "toolkit",
)

P_TILDE = Paper(
    "zhuang2021sigir",
    "Zhuang and Zuccon (SIGIR 2021)",
    "TILDE: Term Independent Likelihood moDEl for Passage Re-ranking",
    "",
    "SIGIR",
    2021,
    "http://ielab.io/publications/arvin-2021-TILDE",
    "reranking",
)
P_TILDE2 = Paper(
    "zhuang2021arxiv",
    "Zhuang and Zuccon (arXiv 2021)",
    "Fast Passage Re-ranking with Contextualized Exact Term Matching and Efficient Passage "
    "Expansion",
    "",
    "arXiv",
    2021,
    "https://arxiv.org/pdf/2108.08513",
    "reranking",
)

P_COSTA = Paper(
    "ma2022sigir",
    "Ma et al. (SIGIR 2022)",
    "Pre-Train a Discriminative Text Encoder for Dense Retrieval via Contrastive Span Prediction",
    "Xinyu Ma, Jiafeng Guo, Ruqing Zhang, Yixing Fan, Xueqi Cheng",
    "SIGIR",
    2022,
    "https://doi.org/10.1145/3477495.3531772",
    "dense",
)
P_PRPGRAPH = Paper(
    "luo2024acl",
    "Luo et al. (ACL 2024)",
    "PRP-Graph: Pairwise Ranking Prompting to LLMs with Graph Aggregation for Effective Text "
    "Re-ranking",
    "Jian Luo, Xuanang Chen, Ben He, Le Sun",
    "ACL",
    2024,
    "https://github.com/Memelank/PRP-Graph",
    "llm-reranking",
)

P_DEAR = Paper(
    "abdallah2025emnlp",
    "Abdallah et al. (EMNLP Findings 2025)",
    "DeAR: Dual-Stage Document Reranking with Reasoning Agents via LLM Distillation",
    "Abdelrahman Abdallah, Jamshid Mozafari, Bhawna Piryani, Adam Jatowt",
    "EMNLP Findings",
    2025,
    "https://arxiv.org/abs/2508.16998",
    "llm-reranking",
)

P_TELE = Paper(
    "sun2022emnlp",
    "Sun et al. (EMNLP 2022)",
    "Reduce Catastrophic Forgetting of Dense Retrieval Training with Teleportation Negatives",
    "Si Sun, Chenyan Xiong, Yue Yu, Arnold Overwijk, Zhiyuan Liu, Jie Bao",
    "EMNLP",
    2022,
    "https://github.com/OpenMatch/OpenMatch/blob/"
    "8330192a607ecd66610bb82b6c8e408600def9a8/docs/models/ance-tele_msmarco_qry-psg-encoder.md",
    "dense",
)
P_OM2_CARDS = Paper(
    "openmatch2023models",
    "OpenMatch (model cards)",
    "OpenMatch model cards",
    "",
    "OpenMatch documentation",
    2022,  # the earliest date git blame gives the cards' kept lines
    "https://github.com/OpenMatch/OpenMatch/tree/8330192a607ecd66610bb82b6c8e408600def9a8/"
    "docs/models",
    "documentation dense",
)

P_CONTRIEVER = Paper(
    "izacard2021arxiv",
    "Izacard et al. (arXiv 2021)",
    "Unsupervised Dense Information Retrieval with Contrastive Learning",
    "Gautier Izacard, Mathilde Caron, Lucas Hosseini, Sebastian Riedel, Piotr Bojanowski, "
    "Armand Joulin, Edouard Grave",
    "arXiv",
    2021,
    "https://arxiv.org/abs/2112.09118",
    "dense",
)

_DL19_NOTE = "the source says 'Test'; its download script fetches the TREC DL 2019 judgments"
_BEIR_JPQ = {name: (coll, "nDCG@10", "") for name, coll in BEIR_NAMES.items()}

TABLES: list[Table] = [
    Table(
        DRHARD,
        P_DRHARD,
        17,
        (19, 24),
        {
            "Dev MRR@10": (DEVP, "RR@10", ""),
            "Dev R@100": (DEVP, "R@100", ""),
            "Test NDCG@10": (DL19P, "nDCG@10", ""),
        },
        proposed=frozenset({"STAR", "ADORE"}),
        evidence=(),
        note="passage retrieval",
    ),
    Table(
        DRHARD,
        P_DRHARD,
        27,
        (29, 34),
        {
            "Dev MRR@100": (DEVD, "RR@100", ""),
            "Dev R@100": (DEVD, "R@100", ""),
            "Test NDCG@10": (DL19D, "nDCG@10", ""),
        },
        proposed=frozenset({"STAR", "ADORE"}),
        note="document retrieval",
        suffix=" (document)",
    ),
    Table(
        JPQ,
        P_JPQ,
        174,
        (176, 177),
        _BEIR_JPQ,
        proposed=frozenset({"JPQ"}),
        evidence=(173,),
        note="zero-shot, M=96 (32x compression), as the line above the table says",
    ),
    Table(
        ANCE,
        P_ANCE,
        177,
        (179, 180),
        {"MRR@10": (DEVP, "RR@10", ""), "Recall@1k": (DEVP, "R@1000", "")},
        proposed=frozenset({"ANCE"}),
        evidence=(174,),
    ),
    Table(
        ANCE,
        P_ANCE,
        182,
        (184, 185),
        {"Rerank": (DL19P, "nDCG@10", " rerank"), "Retrieval": (DL19P, "nDCG@10", " retrieval")},
        proposed=frozenset({"ANCE"}),
        evidence=(174,),
        note="TREC DL passage; the repository's data script downloads the 2019 test set "
        "(commands/data_download.sh)",
    ),
    Table(
        ANCE,
        P_ANCE,
        187,
        (189, 190),
        {"Rerank": (DL19D, "nDCG@10", " rerank"), "Retrieval": (DL19D, "nDCG@10", " retrieval")},
        proposed=frozenset({"ANCE"}),
        evidence=(174,),
        suffix=" (document)",
        note="TREC DL document; the repository's data script downloads the 2019 judgments "
        "(commands/data_download.sh)",
    ),
    Table(
        ANCE,
        P_ANCE,
        192,
        (194, 194),
        {"MRR@10": (DEVP, "RR@10", "")},
        evidence=(174,),
    ),
    Table(
        SPLADE,
        P_SPLADE2,
        71,
        (73, 74),
        {"MRR@10 (MS MARCO dev)": (DEVP, "RR@10", "")},
        proposed=frozenset({"splade_v2"}),
        percent=True,
        code_names=True,
        evidence=(69,),
    ),
    Table(
        SPLADE,
        P_SPLADEPP,
        71,
        (75, 76),
        {"MRR@10 (MS MARCO dev)": (DEVP, "RR@10", "")},
        proposed=frozenset({"SPLADE++"}),
        percent=True,
        code_names=True,
        evidence=(69,),
    ),
    Table(
        SPLADE,
        P_SPLADE_EFF,
        71,
        (77, 78),
        {"MRR@10 (MS MARCO dev)": (DEVP, "RR@10", "")},
        proposed=frozenset({"efficient SPLADE"}),
        percent=True,
        code_names=True,
        evidence=(69,),
    ),
    *[
        Table(
            LIT5,
            P_LIT5,
            header,
            (header + 2, header + 10),
            {"nDCG@10": (coll, "nDCG@10", "")},
            proposed=frozenset({"LiT5"}),
            percent=True,
            suffix=suffix,
            evidence=evidence,
            note=note,
        )
        for header, coll, suffix, evidence, note in (
            (34, DL19P, " (BM25 top-100)", (31, 33), "reranking BM25 first-stage retrieval"),
            (47, DL20P, " (BM25 top-100)", (31, 46), "reranking BM25 first-stage retrieval"),
            (62, DL19P, " (SPLADE++ ED)", (59, 61), "reranking SPLADE++ ED first-stage retrieval"),
            (75, DL20P, " (SPLADE++ ED)", (59, 74), "reranking SPLADE++ ED first-stage retrieval"),
        )
    ],
    Table(
        ST_CE,
        P_ST_CE,
        41,
        (43, 60),
        {
            "NDCG@10 (TREC DL 19)": (DL19P, "nDCG@10", ""),
            "MRR@10 (MS Marco Dev)": (DEVP, "RR@10", ""),
        },
        proposed=frozenset({"-v2"}),
        percent=True,
        evidence=(39,),
        note="cross-encoders re-ranking",
    ),
    Table(
        ST_V3,
        P_ST_V3,
        27,
        (29, 43),
        {
            "NDCG@10 (TREC DL 19 Reranking)": (DL19P, "nDCG@10", ""),
            "MRR@10 (MS Marco Dev)": (DEVP, "RR@10", ""),
        },
        proposed=frozenset({"-v3", "-v4"}),
        percent=True,
        evidence=(23, 24),
    ),
    Table(
        ST_V5,
        P_ST_V5,
        29,
        (31, 44),
        {
            "MRR@10 (MS Marco Dev)": (DEVP, "RR@10", ""),
            "NDCG@10 (TREC DL 19 Reranking)": (DL19P, "nDCG@10", ""),
            "NDCG@10 (TREC DL 20 Reranking)": (DL20P, "nDCG@10", ""),
        },
        proposed=frozenset({"-v5", "-v1"}),
        percent=True,
    ),
    Table(
        BGE,
        P_BGE,
        203,
        (205, 221),
        {"Retrieval (15)": ("beir/mean", "nDCG@10", "")},
        proposed=frozenset({"bge-"}),
        percent=True,
        evidence=(200, 201),
        note="MTEB's Retrieval average over its 15 BEIR datasets (MTEB's main score of a "
        "retrieval task is nDCG@10: seeds/README.md, mteb_beir.csv.gz)",
    ),
    Table(
        D2Q,
        P_D2Q,
        14,
        (16, 21),
        {"Eval MRR@10": ("msmarco-passage/eval/small", "RR@10", "")},
        proposed=frozenset({"docTTTTTquery"}),
        percent=True,
        note="MS MARCO passage leaderboard, Nov 30th 2019 (the table's header)",
    ),
    Table(
        SIMLM,
        P_SIMLM,
        85,
        (87, 87),
        {
            "dev MRR@10": (DEVP, "RR@10", ""),
            "dev R@1k": (DEVP, "R@1000", ""),
            "TREC DL 2019 nDCG@10": (DL19P, "nDCG@10", ""),
            "TREC DL 2020 nDCG@10": (DL20P, "nDCG@10", ""),
        },
        proposed=frozenset({"SimLM"}),
        percent=True,
        system="SimLM bi-encoder retriever (intfloat/simlm-base-msmarco-finetuned)",
        evidence=(67, 83),
    ),
    Table(
        SIMLM,
        P_SIMLM,
        104,
        (106, 106),
        {
            "dev MRR@10": (DEVP, "RR@10", ""),
            "dev R@1k": (DEVP, "R@1000", ""),
            "TREC DL 2019 nDCG@10": (DL19P, "nDCG@10", ""),
            "TREC DL 2020 nDCG@10": (DL20P, "nDCG@10", ""),
        },
        proposed=frozenset({"SimLM"}),
        percent=True,
        system="SimLM cross-encoder re-ranker (intfloat/simlm-msmarco-reranker)",
        evidence=(89, 102),
    ),
    Table(
        SIMLM,
        P_SIMLM,
        134,
        (136, 136),
        {"dev MRR@10": (DEVP, "RR@10", ""), "dev R@1k": (DEVP, "R@1000", "")},
        percent=True,
        system="bi-encoder retriever with BM25 hard negatives",
        evidence=(108,),
    ),
]

TABLES += [
    Table(
        SPLADE_ST,
        P_SPLADE2,
        49,
        (50, 74),
        {
            1: (DEVP, "RR@10", ""),
            2: (DEVP, "R@1000", ""),
            3: (DL19P, "nDCG@10", ""),
            5: (DL20P, "nDCG@10", ""),
        },
        percent=True,
        sections=True,
        section_roles={"Baselines": "baseline"},
        proposed=frozenset({"SPLADE", "Ensemble"}),
        evidence=(3, 7, 47),
        note="the repository's training code with sentence-transformers (not the paper's "
        "runs); the header's column groups: MS MARCO (dev), TREC-2019, TREC-2020",
    ),
    Table(
        OPENMATCH,
        P_OPENMATCH,
        149,
        (151, 156),
        {"Robust04": ("disks45/nocr/trec-robust-2004", "nDCG@20", "")},
        role="reproduction",
        evidence_from=((OPENMATCH_ADHOC, 2), (OPENMATCH_ADHOC, 10)),
        note="re-ranking SDM with 5-fold cross-validation; nDCG@20 as "
        "docs/experiments-adhoc.md line 2 says",
        system_from=(0, 1),
    ),
]

TABLES += [
    Table(
        COSTA,
        P_COSTA,
        83,
        (85, 86),
        {"MRR@10": (DEVP, "RR@10", ""), "Recall@1000": (DEVP, "R@1000", "")},
        proposed=frozenset({"COSTA"}),
        note="MS MARCO passage retrieval (dev)",
    ),
    Table(
        COSTA,
        P_COSTA,
        88,
        (90, 91),
        {"NDCG@10": (DL19P, "nDCG@10", ""), "Recall@1000": (DL19P, "R(rel=2)@1000", "")},
        proposed=frozenset({"COSTA"}),
        evidence=(108, 110),
        note="TREC 2019 passage retrieval; recall with trec_eval -l 2 (the command of line 110)",
    ),
    Table(
        COSTA,
        P_COSTA,
        120,
        (122, 123),
        {"MRR@100": (DEVD, "RR@100", ""), "Recall@100": (DEVD, "R@100", "")},
        proposed=frozenset({"COSTA"}),
        suffix=" (document)",
        note="MS MARCO document retrieval (dev)",
    ),
    Table(
        COSTA,
        P_COSTA,
        126,
        (128, 129),
        {"NDCG@10": (DL19D, "nDCG@10", ""), "Recall@100": (DL19D, "R@100", "")},
        proposed=frozenset({"COSTA"}),
        suffix=" (document)",
        evidence=(144, 146),
        note="TREC 2019 document retrieval (the command of line 146)",
    ),
]

TABLES += [
    Table(
        DEAR,
        P_DEAR,
        458,
        (460, 463),
        {"DL19": (DL19P, "nDCG@10", ""), "DL20": (DL20P, "nDCG@10", "")},
        proposed=frozenset({"DeAR"}),
        percent=True,
        evidence=(455, 457),
    ),
    Table(
        DEAR,
        P_DEAR,
        466,
        (468, 470),
        {
            "Covid": ("beir/trec-covid", "nDCG@10", ""),
            "NFCorpus": ("beir/nfcorpus/test", "nDCG@10", ""),
            "Touche": ("beir/webis-touche2020/v2", "nDCG@10", ""),
            "DBPedia": ("beir/dbpedia-entity/test", "nDCG@10", ""),
            "SciFact": ("beir/scifact/test", "nDCG@10", ""),
            "News": ("beir/trec-news", "nDCG@10", ""),
            "Robust04": ("beir/robust04", "nDCG@10", ""),
            "Signal": ("beir/signal1m", "nDCG@10", ""),
        },
        proposed=frozenset({"DeAR"}),
        percent=True,
        evidence=(455, 465),
        note="BEIR datasets re-ranked (BM25 outputs, line 421)",
    ),
]

_OM2_BEIR = {
    "TREC-COVID": "beir/trec-covid",
    "NFCorpus": "beir/nfcorpus/test",
    "FiQA": "beir/fiqa/test",
    "ArguAna": "beir/arguana",
    "Touché-2020": "beir/webis-touche2020/v2",
    "Quora": "beir/quora/test",
    "SCIDOCS": "beir/scidocs",
    "SciFact": "beir/scifact/test",
    "NQ": "beir/nq",
    "HotpotQA": "beir/hotpotqa/test",
    "Signal-1M": "beir/signal1m",
    "TREC-NEWS": "beir/trec-news",
    "DBPedia-entity": "beir/dbpedia-entity/test",
    "Fever": "beir/fever/test",
    "Climate-Fever": "beir/climate-fever",
    "BioASQ": "beir/bioasq",
    "Robust04": "beir/robust04",
    "CQADupStack": "beir/cqadupstack",
}
_OM2_NOTE = (
    "OpenMatch's model card; BEIR Avg over the 18 datasets the card lists (beir/18); Touché "
    "as BEIR distributes it (v2 judgments: seeds/README.md)"
)
TABLES += [
    Table(
        OM2_TELE,
        P_TELE,
        18,
        (20, 20),
        {"MRR@10": (DEVP, "RR@10", ""), "R@1K": (DEVP, "R@1000", "")},
        proposed=frozenset({"ANCE-Tele"}),
        percent=True,
        evidence=(16,),
    ),
    *[
        Table(
            src,
            P_OM2_CARDS,
            h,
            (h + 2, h + 2),
            {
                "Marco Dev MRR@10": (DEVP, "RR@10", ""),
                "BEIR Avg NDCG@10": ("beir/18", "nDCG@10", ""),
            },
            role=role,
            percent=True,
            system_from=(0, 1),
            evidence=(1, 9),
            note=_OM2_NOTE,
        )
        for src, h, role in ((OM2_TELE_COCO, 16, "proposed"), (OM2_DPR, 17, "reproduction"))
    ],
    *[
        Table(
            src,
            P_OM2_CARDS,
            h,
            (h + 2, h + 19),
            {"NDCG@10": ("", "nDCG@10", "")},
            row_collections=_OM2_BEIR,
            system=system,
            role=role,
            percent=True,
            evidence=(1, 9),
            note=_OM2_NOTE,
        )
        for src, h, system, role in (
            (OM2_TELE_COCO, 20, "ANCE-Tele + cocodr-base", "proposed"),
            (OM2_DPR, 21, "DPR + bert-base-uncased", "reproduction"),
        )
    ],
    Table(
        OM2_T5,
        P_OM2_CARDS,
        16,
        (18, 18),
        {2: (DEVP, "RR@10", "")},
        system="T5-ANCE",
        role="proposed",
        evidence=(1, 9),
        note="the row names dataset and metric (MS MARCO Passage (dev), MRR@10)",
    ),
]

_NDCG = r"^ndcg_cut_10\s+all\s+(?P<v>\d\.\d+)\s*$"
_SW_NOTE = "flan-t5-large re-ranking BM25 (run.msmarco-v1-passage.bm25-default.dl19.txt)"
_MAP = r"^map\s+all\s+(?P<v>\d\.\d+)\s*$"
_TILDE_NOTE = (
    "trec_eval -m ndcg_cut.10 -m map with 2019qrels-pass.txt (no -l 2: AP counts grade 1 "
    "relevant, NIST's AP), re-ranking BM25's top 1000"
)
_TILDE = [
    (TILDE, P_TILDE, 77, 78, "BM25", "baseline", (69, 72)),
    (TILDE, P_TILDE, 106, 107, "TILDE (alpha 1)", "proposed", (81, 101)),
    (TILDE, P_TILDE, 131, 132, "TILDE (alpha 0.5)", "proposed", (109, 128)),
    (TILDE2, P_TILDE2, 52, 53, "TILDEv2", "proposed", (25, 47)),
]
_OM = r"MRR@10\(dev\): (?P<v>\d\.\d+)\.?$"
# Contriever's BEIR nDCG@10 table is HTML, a cell a line: the header cells at lines
# 167-182, the rows of Contriever (185-201) and Contriever-msmarco (204-220). Left out:
# Touché-2020 (the first version of its judgments, line 162: no collection here) and the
# average over the 15 datasets that includes it.
_CONTRIEVER_COLUMNS = {
    168: "beir/msmarco/dev",
    169: "beir/trec-covid",
    170: "beir/nfcorpus/test",
    171: "beir/nq",
    172: "beir/hotpotqa/test",
    173: "beir/fiqa/test",
    174: "beir/arguana",
    176: "beir/quora/test",
    177: "beir/cqadupstack",
    178: "beir/dbpedia-entity/test",
    179: "beir/scidocs",
    180: "beir/fever/test",
    181: "beir/climate-fever",
    182: "beir/scifact/test",
}
_TD = r"^\s*<td>(?P<v>\d+\.\d+)</td>\s*$"
LINES: list[Line] = [
    *[
        Line(
            CONTRIEVER,
            P_CONTRIEVER,
            row + (header - 166),
            _TD,
            coll,
            "nDCG@10",
            system,
            role,
            (162, 166, header, row),
            "BEIR (zero-shot); the table is HTML, one cell a line",
            percent=True,
        )
        for row, system, role in (
            (185, "Contriever", "proposed"),
            (204, "Contriever-msmarco", "proposed"),
        )
        for header, coll in _CONTRIEVER_COLUMNS.items()
    ],
    Line(
        PRPGRAPH,
        P_PRPGRAPH,
        46,
        _NDCG,
        "beir/trec-covid",
        "nDCG@10",
        "PRP-Graph construction (Swiss, 20 rounds, flan-t5-large)",
        "proposed",
        (35, 38, 39, 40, 43),
        "the command evaluates with -l 2 (line 43)",
    ),
    Line(
        PRPGRAPH,
        P_PRPGRAPH,
        63,
        _NDCG,
        "beir/trec-covid",
        "nDCG@10",
        "PRP-Graph (PageRank aggregation, 20 rounds, flan-t5-large)",
        "proposed",
        (52, 55, 56, 57, 60),
    ),
    *[
        Line(src, paper, n, pat, DL19P, measure, system, role, ev, _TILDE_NOTE)
        for src, paper, n_map, n_ndcg, system, role, ev in _TILDE
        for n, pat, measure in ((n_map, _MAP, "AP"), (n_ndcg, _NDCG, "nDCG@10"))
    ],
    *[
        Line(
            OPENMATCH_MARCO,
            P_OPENMATCH,
            n,
            _OM,
            DEVP,
            "RR@10",
            f"BM25 + {name} re-ranker",
            "reproduction",
            (2,),
            "re-ranking BM25's top 1000; 'Reproduce ...' in the source",
        )
        for n, name in (
            (17, "bert-base"),
            (35, "electra-base"),
            (53, "electra-large"),
            (71, "roberta-large"),
        )
    ],
    Line(SETWISE, P_SETWISE, 79, _NDCG, DL19P, "nDCG@10", "BM25", "baseline", (75, 76)),
    Line(
        SETWISE,
        P_SETWISE,
        123,
        _NDCG,
        DL19P,
        "nDCG@10",
        "Pointwise (run.pointwise.qlm.txt)",
        "baseline",
        (119, 120),
        _SW_NOTE,
    ),
    Line(
        SETWISE,
        P_SETWISE,
        160,
        _NDCG,
        DL19P,
        "nDCG@10",
        "Listwise generation (run.liswise.generation.txt)",
        "baseline",
        (156, 157),
        _SW_NOTE,
    ),
    Line(
        SETWISE,
        P_SETWISE,
        209,
        _NDCG,
        DL19P,
        "nDCG@10",
        "Listwise likelihood, Setwise prompting (run.liswise.likelihood.txt)",
        "proposed",
        (184, 205, 206),
        _SW_NOTE,
    ),
    Line(
        SETWISE,
        P_SETWISE,
        240,
        _NDCG,
        DL19P,
        "nDCG@10",
        "Pairwise heapsort (run.pairwise.heapsort.txt)",
        "baseline",
        (236, 237),
        _SW_NOTE,
    ),
    Line(
        SETWISE,
        P_SETWISE,
        279,
        _NDCG,
        DL19P,
        "nDCG@10",
        "Setwise heapsort (run.setwise.heapsort.txt)",
        "proposed",
        (275, 276),
        _SW_NOTE,
    ),
    Line(
        SETWISE,
        P_SETWISE,
        330,
        _NDCG,
        "beir/trec-covid",
        "nDCG@10",
        "BM25",
        "baseline",
        (314, 326, 327),
        "DATASET=trec-covid",
    ),
    Line(
        SETWISE,
        P_SETWISE,
        353,
        _NDCG,
        "beir/trec-covid",
        "nDCG@10",
        "Setwise heapsort (run.setwise.heapsort.${DATASET}.txt)",
        "proposed",
        (314, 349, 350),
        "DATASET=trec-covid; flan-t5-large",
    ),
    Line(
        RANKLLAMA,
        P_RANKLLAMA,
        58,
        _NDCG,
        DL19P,
        "nDCG@10",
        "RankLLaMA (castorini/rankllama-v1-7b-lora-passage) re-ranking RepLLaMA",
        "proposed",
        (5, 30, 55),
    ),
]


# ---------------------------------------------------------------- second batch (literature2)
REPCONC_C = "64f3f8ac265e33a8abcd8d9d750e8a170b739f3b"
REPCONC = _src("jingtaozhan/RepCONC", "README.md", REPCONC_C, 3)
PYGAGGLE_C = "08339dd31f58ef40fbaa109726402e164eeba125"
PG_ENTIRE = _src(
    "castorini/pygaggle", "docs/experiments-msmarco-passage-entire.md", PYGAGGLE_C, 52, 53
)
PG_MONOT5 = _src("castorini/pygaggle", "docs/experiments-monot5-gpu.md", PYGAGGLE_C, 5)
PG_DUOT5 = _src("castorini/pygaggle", "docs/experiments-duot5-tpu.md", PYGAGGLE_C, 7)
TEV_C = "dd063104c81a76d6a77c845f667b46b9e5abd625"
TEV_SPLADE = _src("texttron/tevatron", "examples/splade/README.md", TEV_C)
TEV_MARCO = _src("texttron/tevatron", "examples/example_msmarco.md", TEV_C)
TEV_REPLLAMA = _src("texttron/tevatron", "examples/example_repllama.md", TEV_C, 90, 91)
TEV_LACONIC = _src("texttron/tevatron", "examples/laconic/README.md", TEV_C, 3, 4, 5)
RANKLLM_C = "1b3cabbc3564441bdcda6c6a2e92137b9faa0660"
RANKLLM_README = _src("castorini/rank_llm", "README.md", RANKLLM_C, 460, 465, 466)
RANKLLM_RZ = _src("castorini/rank_llm", "docs/onboarding-rz.md", RANKLLM_C)
ST_SPARSE = _src(
    "UKPLab/sentence-transformers", "docs/sparse_encoder/pretrained_models.md", ST_C, 1
)
ST_V2 = _src("UKPLab/sentence-transformers", "docs/pretrained-models/msmarco-v2.md", ST_C, 1)

P_REPCONC = Paper(
    "zhan2022wsdm",
    "Zhan et al. (WSDM 2022)",
    "Learning Discrete Representations via Constrained Clustering for Effective and Efficient "
    "Dense Retrieval",
    "Jingtao Zhan, Jiaxin Mao, Yiqun Liu, Jiafeng Guo, Min Zhang, Shaoping Ma",
    "WSDM",
    2022,
    "https://arxiv.org/pdf/2110.05789.pdf",
    "dense",
)
P_MONOBERT = Paper(
    "nogueira2019arxiv",
    "Nogueira et al. (arXiv 2019)",
    "Passage Re-ranking with BERT",
    "",
    "arXiv",
    2019,
    "https://arxiv.org/pdf/1901.04085.pdf",
    "reranking",
)
P_MONOT5 = Paper(
    "nogueira2020emnlp",
    "Nogueira et al. (EMNLP Findings 2020)",
    "Document Ranking with a Pretrained Sequence-to-Sequence Model",
    "",
    "EMNLP Findings",
    2020,
    "https://www.aclweb.org/anthology/2020.findings-emnlp.63.pdf",
    "reranking",
)
P_DUOT5 = Paper(
    "pradeep2021arxiv",
    "Pradeep et al. (arXiv 2021)",
    "The Expando-Mono-Duo Design Pattern for Text Ranking with Pretrained Sequence-to-Sequence "
    "Models",
    "",
    "arXiv",
    2021,
    "https://arxiv.org/pdf/2101.05667.pdf",
    "reranking",
)
P_TEVATRON = Paper(
    "gao2022tevatron",
    "Gao et al. (arXiv 2022)",
    "Tevatron: An Efficient and Flexible Toolkit for Dense Retrieval",
    "Luyu Gao, Xueguang Ma, Jimmy J. Lin, Jamie Callan",
    "arXiv",
    2022,
    "https://arxiv.org/abs/2203.05765",
    "toolkit",
)
P_LACONIC = Paper(
    "laconic2026arxiv",
    "LACONIC (arXiv 2026)",
    "Dense-Level Effectiveness for Scalable Sparse Retrieval via a Two-Phase Training Curriculum",
    "",
    "arXiv",
    2026,
    "https://arxiv.org/abs/2601.01684",
    "sparse",
)
P_RANKZEPHYR = Paper(
    "pradeep2023rankzephyr",
    "Pradeep et al. (arXiv 2023)",
    "RankZephyr: Effective and Robust Zero-Shot Listwise Reranking is a Breeze!",
    "Ronak Pradeep, Sahel Sharifymoghaddam, Jimmy Lin",
    "arXiv",
    2023,
    "https://arxiv.org/abs/2312.02724",
    "llm-reranking",
)
P_ST_SPARSE = Paper(
    "sbert2025sparse",
    "sentence-transformers (Sparse Encoder pretrained models)",
    "Pretrained Models",
    "",
    "sentence-transformers documentation",
    2025,
    f"https://github.com/UKPLab/sentence-transformers/blob/{ST_C}/docs/sparse_encoder/pretrained_models.md",
    "documentation sparse",
)
P_ST_V2 = Paper(
    "sbert2021msmarcov2",
    "sentence-transformers (MSMARCO Models, v2)",
    "MSMARCO Models (Version 2)",
    "",
    "sentence-transformers documentation",
    2021,
    f"https://github.com/UKPLab/sentence-transformers/blob/{ST_C}/docs/pretrained-models/msmarco-v2.md",
    "documentation dense",
)

_REPCONC_COLS = {
    "MS MARCO Dev (MRR@10)": (DEVP, "RR@10", ""),
    "TREC 19 DL (NDCG@10)": (DL19P, "nDCG@10", ""),
    "TREC 20 DL (NDCG@10)": (DL20P, "nDCG@10", ""),
}
TABLES += [
    *[
        Table(
            _src("jingtaozhan/RepCONC", f"examples/{path}/README.md", REPCONC_C),
            P_REPCONC,
            header,
            (header + 2, last),
            _REPCONC_COLS,
            proposed=frozenset({"RepCONC"}),
            system_from=(0, 1),
            suffix=f" (compressing {model})",
            evidence=(1, 3),
            evidence_from=((REPCONC, 3),),
            note=f"{model} compressed; the system names the method and its PQ sub-vectors "
            "('-': uncompressed)",
        )
        for path, header, last, model in (
            ("ance/msmarco-passage", 9, 14, "ANCE"),
            ("cocondenser", 11, 19, "coCondenser"),
            ("sentence-bert", 9, 17, "SBERT"),
            ("tas-balanced", 9, 17, "TAS-B"),
            ("tct-colbert/msmarco-passage", 9, 17, "TCT-ColBERT-v2"),
        )
    ],
    Table(
        ST_SPARSE,
        P_ST_SPARSE,
        44,
        (46, 60),
        {"BEIR-13 avg nDCG@10": ("beir/13", "nDCG@10", "")},
        proposed=frozenset({"/"}),
        percent=True,
        evidence=(36,),
        note="BEIR-13 average as the header names it (beir/13); the MS MARCO MRR@10 column "
        "names no split and is left out",
    ),
    Table(
        ST_SPARSE,
        P_ST_SPARSE,
        68,
        (70, 75),
        {"BEIR-13 avg nDCG@10": ("beir/13", "nDCG@10", "")},
        proposed=frozenset({"/"}),
        percent=True,
        evidence=(62,),
        note="inference-free SPLADE models; BEIR-13 average as the header names it (beir/13)",
    ),
    Table(
        ST_V2,
        P_ST_V2,
        27,
        (29, 32),
        {
            "NDCG@10 (TREC DL 19 Reranking)": (DL19P, "nDCG@10", ""),
            "MRR@10 (MS Marco Dev)": (DEVP, "RR@10", ""),
        },
        proposed=frozenset({"-v2"}),
        percent=True,
        evidence=(22,),
    ),
]

_MARCO_EVAL = r"^MRR @10: (?P<v>0\.\d+)\s*$"
_MRR10 = r"^mrr@10\s+(?P<v>0\.\d+)\s*$"
_TEV_NDCG = r"^# ndcg_cut_10\s+all\s+(?P<v>0\.\d+)\s*$"
_TEV_R100 = r"^# recall_100\s+all\s+(?P<v>0\.\d+)\s*$"
_RERANK_BM25 = "re-ranking BM25's top 1000 (MS MARCO passage dev, 6,980 queries)"
LINES += [
    Line(
        PG_ENTIRE,
        P_MONOBERT,
        77,
        _MARCO_EVAL,
        DEVP,
        "RR@10",
        "BM25",
        "baseline",
        (1, 67, 70),
        "the first stage, MS MARCO's evaluation script on the entire dev set (small)",
    ),
    Line(
        PG_ENTIRE,
        P_MONOBERT,
        113,
        _MRR10,
        DEVP,
        "RR@10",
        "monoBERT-Large (castorini/monobert-large-msmarco)",
        "proposed",
        (1, 91, 98),
        _RERANK_BM25,
    ),
    Line(
        PG_ENTIRE,
        P_MONOT5,
        155,
        _MRR10,
        DEVP,
        "RR@10",
        "monoT5-base (castorini/monot5-base-msmarco)",
        "proposed",
        (1, 131, 138),
        _RERANK_BM25,
    ),
    *[
        Line(
            PG_MONOT5,
            P_MONOT5,
            n,
            _MARCO_EVAL,
            DEVP,
            "RR@10",
            f"monoT5-{size}",
            "proposed",
            (1, 10, 210, n - 4),
            _RERANK_BM25 + "; MS MARCO's evaluation script",
        )
        for n, size in ((217, "3B"), (225, "large"), (233, "base (GPU mesh)"))
    ],
    *[
        Line(
            PG_DUOT5,
            P_DUOT5,
            n,
            _MARCO_EVAL,
            DEVP,
            "RR@10",
            system,
            role,
            ev,
            "MS MARCO's evaluation script on the dev set (small)",
        )
        for n, system, role, ev in (
            (92, "monoT5-3B", "baseline", (82, 85, 88)),
            (101, "monoT5-base", "baseline", (82, 85, 97)),
            (248, "monoT5-3B + duoT5-3B (sym-sum)", "proposed", (234, 235, 236, 241, 244)),
            (257, "monoT5-base + duoT5-base (sym-sum)", "proposed", (234, 235, 236, 241, 253)),
        )
    ],
    Line(
        TEV_SPLADE,
        P_TEVATRON,
        100,
        r"^# recip_rank\s+all\s+(?P<v>0\.\d+)\s*$",
        DEVP,
        "RR@10",
        "SPLADE trained with Tevatron (model_msmarco_splade)",
        "reproduction",
        (1, 4, 98),
        "pyserini trec_eval -M 10 -m recip_rank on msmarco-passage-dev-subset",
    ),
    *[
        Line(
            TEV_SPLADE,
            P_TEVATRON,
            n,
            pat,
            "beir/scifact/test",
            measure,
            "SPLADE trained with Tevatron (model_msmarco_splade)",
            "reproduction",
            (1, 4, 107, 167),
            "zero-shot, dataset=scifact (line 107)",
        )
        for n, pat, measure in ((169, _TEV_R100, "R@100"), (170, _TEV_NDCG, "nDCG@10"))
    ],
    Line(
        TEV_MARCO,
        P_TEVATRON,
        82,
        r"`MRR@10: (?P<v>0\.\d+)`",
        DEVP,
        "RR@10",
        "dense retriever from bert-base-uncased trained with Tevatron",
        "reproduction",
        (3, 9, 11, 79),
        "pyserini msmarco_passage_eval on msmarco-passage-dev-subset",
    ),
    *[
        Line(
            TEV_REPLLAMA,
            P_RANKLLAMA,
            n,
            pat,
            "beir/scifact/test",
            measure,
            "RepLLaMA (Tevatron v2)",
            "proposed",
            (1, 4, 81),
            "zero-shot SciFact, retrieval depth 100",
        )
        for n, pat, measure in ((83, _TEV_R100, "R@100"), (84, _TEV_NDCG, "nDCG@10"))
    ],
    Line(
        TEV_LACONIC,
        P_LACONIC,
        47,
        r"^\| Paper \| (?P<v>0\.\d+) \|$",
        "beir/scifact/test",
        "nDCG@10",
        "LACONIC (utahnlp/laconic-1b), as the paper prints",
        "proposed",
        (40, 42),
        "the paper's value the Tevatron port is compared with",
    ),
    Line(
        TEV_LACONIC,
        P_LACONIC,
        46,
        r"\| \*\*(?P<v>0\.\d+)\*\* \|$",
        "beir/scifact/test",
        "nDCG@10",
        "LACONIC (utahnlp/laconic-1b) in Tevatron, no BOS, query:/passage: prefixes",
        "reproduction",
        (40, 42, 49),
        "Tevatron's reproduction (Seismic approximate search)",
    ),
    Line(
        RANKLLM_RZ,
        P_RANKZEPHYR,
        180,
        _NDCG,
        DL20P,
        "nDCG@10",
        "RankZephyr (castorini/rank_zephyr_7b_v1_full) re-ranking SPLADE++ ED top 100",
        "proposed",
        (169, 170, 171, 172, 176, 183),
        "rank_llm's onboarding guide: 'should be something like' this (LLM runs vary)",
    ),
]


# castorini/pyserini's reproduction pages (docs/experiments-*.md): each names its paper on
# line 5 (the citation kept) and prints the scores its commands give (role reproduction)
PYS_C = "0a0be2960d33a578a883f10ec962ef1eff0ce1b7"


def _pys(page: str, *cite: int) -> Source:
    return _src("castorini/pyserini", f"docs/experiments-{page}.md", PYS_C, *cite)


def _paper(key, citation, title, authors, venue, year, url, tags) -> Paper:
    return Paper(key, citation, title, authors, venue, year, url, tags)


P_AGG = _paper(
    "lin2022aggretriever",
    "Lin et al. (arXiv 2022)",
    "Aggretriever: A Simple Approach to Aggregate Textual Representation for Robust Dense "
    "Passage Retrieval",
    "Sheng-Chieh Lin, Minghan Li, Jimmy Lin",
    "arXiv",
    2022,
    "https://arxiv.org/abs/2208.00511",
    "dense",
)
P_KD = _paper(
    "hofstaetter2020arxiv",
    "Hofstätter et al. (arXiv 2020)",
    "Improving Efficient Neural Ranking Models with Cross-Architecture Knowledge Distillation",
    "Sebastian Hofstätter, Sophia Althammer, Michael Schröder, Mete Sertkan, Allan Hanbury",
    "arXiv",
    2020,
    "https://arxiv.org/abs/2010.02666",
    "dense",
)
P_TASB = _paper(
    "hofstaetter2021sigir",
    "Hofstätter et al. (SIGIR 2021)",
    "Efficiently Teaching an Effective Dense Retriever with Balanced Topic Aware Sampling",
    "Sebastian Hofstätter, Sheng-Chieh Lin, Jheng-Hong Yang, Jimmy Lin, Allan Hanbury",
    "SIGIR",
    2021,
    "https://arxiv.org/abs/2104.06967",
    "dense",
)
P_DEEPIMPACT = _paper(
    "mallia2021sigir",
    "Mallia et al. (SIGIR 2021)",
    "Learning Passage Impacts for Inverted Indexes",
    "Antonio Mallia, Omar Khattab, Nicola Tonellotto, Torsten Suel",
    "SIGIR",
    2021,
    "https://dl.acm.org/doi/10.1145/3404835.3463030",
    "sparse",
)
P_TCT = _paper(
    "lin2020tct",
    "Lin et al. (arXiv 2020)",
    "Distilling Dense Representations for Ranking using Tightly-Coupled Teachers",
    "Sheng-Chieh Lin, Jheng-Hong Yang, Jimmy Lin",
    "arXiv",
    2020,
    "https://arxiv.org/abs/2010.11386",
    "dense",
)
P_TCT2 = _paper(
    "lin2021repl4nlp",
    "Lin et al. (RepL4NLP 2021)",
    "In-Batch Negatives for Knowledge Distillation with Tightly-CoupledTeachers for Dense "
    "Retrieval",  # sic: the source's spelling, kept so that the citation check finds it
    "Sheng-Chieh Lin, Jheng-Hong Yang, Jimmy Lin",
    "RepL4NLP",
    2021,
    "https://aclanthology.org/2021.repl4nlp-1.17/",
    "dense",
)
P_UNICOIL = _paper(
    "lin2021unicoil",
    "Lin and Ma (arXiv 2021)",
    "A Few Brief Notes on DeepImpact, COIL, and a Conceptual Framework for Information "
    "Retrieval Techniques",
    "Jimmy Lin, Xueguang Ma",
    "arXiv",
    2021,
    "https://arxiv.org/abs/2106.14807",
    "sparse",
)
P_SLIM = _paper(
    "li2023slim",
    "Li et al. (arXiv 2023)",
    "SLIM: Sparsified Late Interaction for Multi-Vector Retrieval with Inverted Indexes",
    "Minghan Li, Sheng-Chieh Lin, Xueguang Ma, Jimmy Lin",
    "arXiv",
    2023,
    "https://arxiv.org/abs/2302.06587",
    "sparse",
)
P_ANCEPRF = _paper(
    "yu2021arxiv",
    "Yu et al. (arXiv 2021)",
    "Improving Query Representations for Dense Retrieval with Pseudo Relevance Feedback",
    "HongChien Yu, Chenyan Xiong, Jamie Callan",
    "arXiv",
    2021,
    "https://arxiv.org/abs/2108.13454",
    "dense",
)

_R1K = r"^recall_1000\s+all\s+(?P<v>\d\.\d+)\s*$"
_PYS_NOTE = "Pyserini's reproduction (castorini/pyserini docs), MS MARCO passage dev (small)"
_PYS: list[tuple] = [
    # page, cite lines, paper, [(line, pattern, collection, measure, system, evidence)]
    (
        "aggretriever",
        (5,),
        P_AGG,
        [
            (44, _MARCO_EVAL, DEVP, "RR@10", "Aggretriever-DistilBERT", (21, 28, 40)),
            (57, _R1K, DEVP, "R@1000", "Aggretriever-DistilBERT", (21, 53)),
            (83, _MARCO_EVAL, DEVP, "RR@10", "Aggretriever-coCondenser", (60, 67, 79)),
            (96, _R1K, DEVP, "R@1000", "Aggretriever-coCondenser", (60, 92)),
        ],
    ),
    (
        "distilbert_kd",
        (5,),
        P_KD,
        [
            (34, _MARCO_EVAL, DEVP, "RR@10", "DistilBERT KD", (1, 16)),
            (55, _R1K, DEVP, "R@1000", "DistilBERT KD", (1, 47)),
        ],
    ),
    (
        "distilbert_tasb",
        (5,),
        P_TASB,
        [
            (34, _MARCO_EVAL, DEVP, "RR@10", "DistilBERT KD TAS-B", (1, 16)),
            (55, _R1K, DEVP, "R@1000", "DistilBERT KD TAS-B", (1, 47)),
        ],
    ),
    (
        "deepimpact",
        (5,),
        P_DEEPIMPACT,
        [
            (75, _MARCO_EVAL, DEVP, "RR@10", "DeepImpact", (1, 54)),
        ],
    ),
    (
        "tct_colbert",
        (5,),
        P_TCT,
        [
            (50, _MARCO_EVAL, DEVP, "RR@10", "TCT-ColBERT (brute-force index)", (24, 29)),
            (71, _R1K, DEVP, "R@1000", "TCT-ColBERT (brute-force index)", (24, 63)),
            (97, _MARCO_EVAL, DEVP, "RR@10", "TCT-ColBERT (HNSW index)", (74, 79)),
            (117, _R1K, DEVP, "R@1000", "TCT-ColBERT (HNSW index)", (74, 109)),
        ],
    ),
    (
        "tct_colbert-v2",
        (5,),
        P_TCT2,
        [
            (50, _MARCO_EVAL, DEVP, "RR@10", "TCT-ColBERT-V2", (25, 32)),
            (71, _R1K, DEVP, "R@1000", "TCT-ColBERT-V2", (25, 63)),
            (99, _MARCO_EVAL, DEVP, "RR@10", "TCT-ColBERT-V2-HN", (74, 81)),
            (119, _R1K, DEVP, "R@1000", "TCT-ColBERT-V2-HN", (74, 111)),
            (147, _MARCO_EVAL, DEVP, "RR@10", "TCT-ColBERT-V2-HN+", (122, 129)),
        ],
    ),
    (
        "unicoil",
        (5,),
        P_UNICOIL,
        [
            (
                81,
                _MARCO_EVAL,
                DEVP,
                "RR@10",
                "uniCOIL w/ doc2query-T5 (query encoder)",
                (1, 56, 61),
            ),
            (
                112,
                _MARCO_EVAL,
                DEVP,
                "RR@10",
                "uniCOIL w/ doc2query-T5 (pre-tokenized queries)",
                (1, 89, 95),
            ),
            (
                182,
                r"^MRR @100: (?P<v>0\.\d+)\s*$",
                DEVD,
                "RR@100",
                "uniCOIL w/ doc2query-T5 (segmented documents)",
                (1, 119, 161, 178),
            ),
        ],
    ),
    (
        "slim",
        (5, 6),
        P_SLIM,
        [
            (37, _MARCO_EVAL, DEVP, "RR@10", "SLIM (castorini/slimr-msmarco-passage)", (12, 17)),
            (
                63,
                _MARCO_EVAL,
                DEVP,
                "RR@10",
                "SLIM++ (castorini/slimr-pp-msmarco-passage)",
                (42, 48, 49),
            ),
        ],
    ),
    (
        "ance-prf",
        (5,),
        P_ANCEPRF,
        [
            (64, _NDCG, DL19P, "nDCG@10", "ANCE-PRF (k=3)", (49, 53, 63)),
            (85, _NDCG, DL20P, "nDCG@10", "ANCE-PRF (k=3)", (84,)),
            (108, _MARCO_EVAL, DEVP, "RR@10", "ANCE-PRF (k=3)", (91,)),
        ],
    ),
]
LINES += [
    Line(
        _pys(page, *cite),
        paper,
        n,
        pat,
        coll,
        measure,
        system,
        "reproduction",
        ev,
        _PYS_NOTE if coll == DEVP else "Pyserini's reproduction (castorini/pyserini docs)",
    )
    for page, cite, paper, entries in _PYS
    for n, pat, coll, measure, system, ev in entries
]


def build_rows(  # noqa: C901
    tables: list[Table], lines: list[Line], read
) -> tuple[list[dict], set]:
    """The result rows and the (source key, line) pairs they were read from.
    ``read(source)`` returns ``{line: (text, date)}`` for the lines of a source."""
    rows: list[dict] = []
    used: set[tuple[tuple[str, str, str], int]] = set()
    for t in tables:
        src = read(t.source)
        header = _cells(src[t.header][0])
        for n in [*t.source.cite, *t.evidence, t.header]:
            used.add((t.source.key, n))
        for other, n in t.evidence_from:
            read(other)[n]  # noqa: B018 - it must exist
            used.add((other.key, n))
        section = ""
        for n in range(t.rows[0], t.rows[1] + 1):
            if n not in src:
                continue  # the kept lines hold only the lines with a value
            text, date = src[n]
            if not text.strip().startswith("|") and "|" not in text:
                continue
            cells = _cells(text)
            if _is_rule(cells):
                continue
            system = t.system or " + ".join(_clean(cells[i]) for i in t.system_from)
            if t.row_collections and _clean(cells[0]) not in t.row_collections:
                raise ValueError(f"{t.source.path}: line {n}: no collection for {cells[0]!r}")
            if t.code_names:
                system = " + ".join(re.findall(r"`([^`]+)`", cells[0]))
            if t.sections and not any(re.search(r"\d", _clean(c)) for c in cells[1:]):
                section = system
                used.add((t.source.key, n))  # kept: it names the rows below
                continue
            role_of_section = t.section_roles.get(section)
            if t.sections and section and role_of_section is None:
                system = f"{section}: {system}"
            for i, head in enumerate(header):
                key: str | int = i if i in t.columns else _clean(head)
                if key not in t.columns or i >= len(cells):
                    continue
                printed = _clean(cells[i])
                if not re.fullmatch(r"\d+(\.\d+)?", printed):
                    continue  # '-', 'n.a.', blank: no value
                coll, measure, setting = t.columns[key]
                if t.row_collections:  # one system, a row per dataset
                    coll = t.row_collections[_clean(cells[0])]
                name = f"{system}{setting}{t.suffix}"
                role = (
                    t.role
                    or role_of_section
                    or ("proposed" if any(p in system for p in t.proposed) else "baseline")
                )
                used.add((t.source.key, n))
                rows.append(
                    _row(
                        t.source,
                        t.paper,
                        n,
                        date,
                        f"{i}, {_clean(head)}" if isinstance(key, int) else key,
                        printed,
                        t.percent,
                        coll,
                        measure,
                        name,
                        role,
                        t.note,
                    )
                )
    for ln in lines:
        src = read(ln.source)
        text, date = src[ln.line]
        m = re.search(ln.pattern, text)
        if m is None:
            raise ValueError(f"{ln.source.repo}/{ln.source.path}: line {ln.line} does not match")
        for n in [ln.line, *ln.source.cite, *ln.evidence]:
            used.add((ln.source.key, n))
        rows.append(
            _row(
                ln.source,
                ln.paper,
                ln.line,
                date,
                None,
                m["v"],
                ln.percent,
                ln.collection,
                ln.measure,
                ln.system,
                ln.role,
                ln.note,
            )
        )
    return rows, used


def _cells(text: str) -> list[str]:
    s = text.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def _is_rule(cells: list[str]) -> bool:
    return all(re.fullmatch(r":?-{2,}:?", c.strip()) for c in cells if c.strip())


def _clean(cell: str) -> str:
    """A cell's text without Markdown: links become their text, bold and code marks go."""
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell)
    s = s.replace("**", "").replace("`", "")
    return " ".join(s.split())


def percent_to_fraction(printed: str) -> str:
    """'71.7' -> '0.717': the same digits, the point moved two places (exact)."""
    d = Decimal(printed).scaleb(-2)
    return format(d, "f")


def _row(  # noqa: PLR0913
    src: Source,
    paper: Paper,
    line: int,
    date: str,
    column,
    printed: str,
    percent: bool,
    coll: str,
    measure: str,
    system: str,
    role: str,
    note: str,
) -> dict:
    topic_set, n = COLLECTIONS[coll]
    value = percent_to_fraction(printed) if percent else printed
    notes = [note] if note else []
    if percent:
        notes.append(f"printed {printed} (percent)")
    notes.append(f"date: when the line entered {src.repo} (git blame at the commit)")
    where = f"{src.repo}/{src.path}@{src.commit[:12]}: line {line}"
    if column:
        where += f", column {column}"
    return {
        "source": "paper",
        "paper": paper.bibkey,
        "paper_citation": paper.citation,
        "paper_title": paper.title,
        "paper_authors": paper.authors,
        "paper_venue": paper.venue,
        "paper_year": str(paper.year),
        "paper_doi": "",
        "paper_url": paper.url,
        "paper_tags": paper.tags,
        "track": "",
        "collection": coll,
        "topic_set": topic_set,
        "n_topics": str(n),
        "measure": measure,
        "value": value,
        "system": system,
        "participant": "",
        "role": role,
        "run_type": "automatic",
        "year": date[:4],
        "standard": "true",
        "location": where,
        "transcribed_by": TRANSCRIBED_BY,
        "transcribed_at": TRANSCRIBED_AT,
        "status": "draft",
        "notes": "; ".join(notes),
        "date": date,
        "reporter": "authors",
        "url": f"https://github.com/{src.repo}/blob/{src.commit}/{src.path}#L{line}",
        "code_url": f"https://github.com/{src.repo}",
    }


# ---------------------------------------------------------------- reading
def read_mirror(mirrors: Path):
    """``read(source)`` from the bare git mirrors: the file at the pinned commit, and
    each line's date from git blame at that commit."""
    cache: dict = {}

    def read(src: Source) -> dict[int, tuple[str, str]]:
        if src.key in cache:
            return cache[src.key]
        git = mirrors / src.repo.replace("/", "+") / "repo"
        text = subprocess.run(
            ["git", "--git-dir", str(git), "show", f"{src.commit}:{src.path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        dates = _blame_dates(git, src)
        lines = text.split("\n")
        cache[src.key] = {i: (s, dates(i)) for i, s in enumerate(lines, start=1)}
        return cache[src.key]

    return read


def _blame_dates(git: Path, src: Source):
    """line -> the date git blame gives the line at the pinned commit; where the mirror
    lacks the history blame needs, the date of the last commit of the file up to the
    pinned one (the value was published by then)."""
    import datetime as dt

    run = subprocess.run(
        ["git", "--git-dir", str(git), "blame", "--line-porcelain", src.commit, "--", src.path],
        capture_output=True,
        text=True,
    )
    if run.returncode == 0:
        dates = [
            dt.datetime.fromtimestamp(int(b.split()[1]), dt.UTC).date().isoformat()
            for b in run.stdout.splitlines()
            if b.startswith("author-time ")
        ]
        return lambda i: dates[i - 1] if i <= len(dates) else ""
    last = (
        subprocess.run(
            ["git", "--git-dir", str(git), "log", "-1", "--format=%at", src.commit, "--", src.path],
            capture_output=True,
            text=True,
        ).stdout.strip()
        or subprocess.run(
            ["git", "--git-dir", str(git), "show", "-s", "--format=%at", src.commit],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    day = dt.datetime.fromtimestamp(int(last), dt.UTC).date().isoformat()
    return lambda i: day


def read_kept(path: Path = LINES_CSV):
    """``read(source)`` from the kept lines (``literature_lines.csv.gz``; gzipped or not)."""
    kept: dict[tuple[str, str, str], dict[int, tuple[str, str]]] = {}
    if not path.exists() and path.suffix == ".gz" and path.with_suffix("").exists():
        path = path.with_suffix("")  # the plain file of before (literature_lines.csv)
    with io.StringIO(read_text(path), newline="") as f:
        for r in csv.DictReader(f):
            kept.setdefault((r["repo"], r["path"], r["commit"]), {})[int(r["line"])] = (
                r["text"],
                r["date"],
            )

    def read(src: Source) -> dict[int, tuple[str, str]]:
        return kept[src.key]

    return read


def read_text(path: Path) -> str:
    """A file's text, gunzipped when its name ends in .gz."""
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def render(rows: list[dict], columns: list[str]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def build(read) -> tuple[str, str]:
    """(literature.csv, literature_lines.csv) as text (both written gzipped)."""
    rows, used = build_rows(TABLES, LINES, read)
    kept = []
    by_src: dict = {}
    for t in TABLES:
        by_src[t.source.key] = t.source
        for other, _ in t.evidence_from:
            by_src[other.key] = other
    for ln in LINES:
        by_src[ln.source.key] = ln.source
    for key, n in sorted(used):
        text, date = read(by_src[key])[n]
        kept.append(dict(zip(LINE_COLUMNS, [*key, str(n), date, text], strict=True)))
    return render(rows, COLUMNS), render(kept, LINE_COLUMNS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    ap.add_argument("--check", action="store_true", help="exit 1 if the files are out of date")
    ap.add_argument(
        "--from-lines", action="store_true", help="read the kept lines, not the mirrors"
    )
    a = ap.parse_args(argv)
    use_kept = a.from_lines or not a.mirrors.is_dir()
    results, lines = build(read_kept() if use_kept else read_mirror(a.mirrors))
    targets = {OUT_CSV: results} if use_kept else {OUT_CSV: results, LINES_CSV: lines}
    if a.check:
        stale = [p.name for p, t in targets.items() if not p.exists() or read_text(p) != t]
        for name in stale:
            print(f"out of date: {name}", file=sys.stderr)
        return 1 if stale else 0
    for p, t in targets.items():
        data = t.encode("utf-8")
        p.write_bytes(gzip.compress(data, mtime=0) if p.suffix == ".gz" else data)
    n = results.count("\n") - 1
    print(f"{OUT_CSV.name}: {n} rows; {LINES_CSV.name}: {lines.count(chr(10)) - 1} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
