"""Type stubs of gramlink's native module (python/src/*.rs)."""

import os
from typing import Any, Iterable, Literal, Optional, Sequence, Tuple, TypedDict, Union

import pandas
import pyarrow
from typing_extensions import Unpack

# A column of strings: a list or tuple of str, a pandas Series, a pyarrow
# (chunked) array or a numpy array of str.
Column = Union[Sequence[str], "pandas.Series[str]", "pyarrow.Array", "pyarrow.ChunkedArray", Any]
# A file: its bytes, a path, or (CSV) a pandas DataFrame.
Source = Union[bytes, bytearray, str, "os.PathLike[str]", "pandas.DataFrame"]
Message = Union[bytes, bytearray, str]
# A signing key, public key or signature: the text of its file, or its bytes.
KeyText = Union[str, bytes, bytearray]
Party = Literal["A", "B", "a", "b"]
RuleName = Literal["ranked", "all", "greedy", "nearest"]
Schema = Union[dict, str, "os.PathLike[str]"]
Path = Union[str, "os.PathLike[str]"]
# scored candidates as little-endian columns (rows of A and B, distances, scores, edits) and a count
ScoredColumns = Tuple[bytes, bytes, bytes, bytes, bytes, int]
# a record shard's columns: rows of A and B, levels, swapped, sample patterns, rule counts, sent fields
ShardColumns = Tuple[bytes, bytes, bytes, bytes, bytes, list[Tuple[str, int, list[str]]], int]

# The keywords the native functions read as one options object (typing names
# only, as the aliases above): each left out is the default configuration's.
class MineOptions(TypedDict, total=False):
    """`DataOwner.mine` and `merge_bases` (the core's mining options)."""

    epsilon: float
    k: int
    q_min: int
    q_max: int
    h_max: int
    miner: str
    strategy: str
    max_grams_per_record: int
    padding: bool
    public_q: Optional[int]

class EmbedRequest(TypedDict, total=False):
    """`RecordOwner.embed` (the core's embed request): party "A" unless
    given; random pseudonyms unless keep_ids=True."""

    party: Party
    key: Optional[str]
    passphrase: Optional[str]
    no_key: bool
    keep_ids: bool
    encoding: Optional[str]

class StringEmbedRequest(EmbedRequest, total=False):
    """`DataOwner.embed`: the embed request with one string's thresholds."""

    thresholds: Optional[dict[str, Any]]

class Signatures(TypedDict, total=False):
    """`Matcher` and `RecordMatcher`: with a party's public signing key
    (`verify_a`, `verify_b`: `sign_keygen`'s or the CLI's `.pub`), its batch
    must come with a valid signature (`signature_a`, `signature_b`:
    `sign_batch`'s or the CLI's `.sig`; SIGNATURE_MISSING, SIGNATURE_INVALID),
    checked first."""

    verify_a: Optional[KeyText]
    signature_a: Optional[KeyText]
    verify_b: Optional[KeyText]
    signature_b: Optional[KeyText]

class DataOwner:
    """One party's records, normalized onto the public alphabet, with its budget."""

    def __init__(
        self,
        records: Column,
        *,
        ids: Optional[Column] = None,
        alphabet: str = "letters",
        budget: Optional[float] = None,
        seed: Optional[int] = None,
    ) -> None: ...
    @staticmethod
    def read(
        source: Source,
        *,
        format: Literal["auto", "text", "csv"] = "auto",
        column: Optional[str] = None,
        id_column: Optional[str] = None,
        name: Optional[str] = None,
        alphabet: str = "letters",
        budget: Optional[float] = None,
        seed: Optional[int] = None,
    ) -> "DataOwner": ...
    @property
    def size(self) -> int: ...
    def __len__(self) -> int: ...
    @property
    def ids(self) -> list[str]: ...
    @property
    def epsilon_budget(self) -> float: ...
    @property
    def epsilon_spent(self) -> float: ...
    @property
    def private(self) -> bool: ...
    def normalization_report(self) -> dict[str, Any]: ...
    def mine(self, **options: Unpack[MineOptions]) -> str: ...
    def embed(
        self, shared: str, *, binary: bool = True, **options: Unpack[StringEmbedRequest]
    ) -> Union[bytes, str]: ...
    # ids: random pseudonyms unless keep_ids=True; the map of the last embed (CSV pseudonym,id), None if kept
    def id_map_csv(self) -> Optional[str]: ...
    # without key, passphrase or no_key=True: GramlinkError KEY_REQUIRED (unkeyed vectors give the records back)
    def vectors(self, shared: str) -> list[list[float]]: ...
    def thresholds(self, shared: str, *, ed: int = ..., mode: Any = ...) -> list[float]: ...

def merge_bases(a: str, b: str, *more: str, **options: Unpack[MineOptions]) -> str: ...
def fingerprint(shared: str) -> str: ...
def unmap(pairs: Union[str, bytes], a_map: Optional[str] = None, b_map: Optional[str] = None) -> str: ...
def keygen() -> str: ...
def sign_keygen() -> Tuple[str, str]:
    """A new Ed25519 signing key: (signing_key, public_key), the texts of
    `gramlink sign-keygen`'s two files. Keep the first; give the second to the
    matcher out of band."""
def sign_batch(signing_key: KeyText, batch: Message) -> str:
    """The signature of a batch (vector or record batch, as sent; text is signed
    as its UTF-8 bytes): the text of the CLI's `<batch>.sig`."""
def verify_batch(
    public_key: KeyText, batch: Message, signature: Optional[KeyText] = None
) -> None:
    """Raises GramlinkError SIGNATURE_MISSING (no signature), SIGNATURE_INVALID
    (another key's, a changed byte) or INVALID_KEY unless `signature` is the
    batch's by the key of `public_key`."""
def defaults() -> dict[str, Any]: ...

class Linkage:
    """The pairs of a linkage, as columns (rows and ids of A and B, distances)."""

    @property
    def rule(self) -> str: ...
    @property
    def candidates(self) -> int: ...
    @property
    def a(self) -> list[int]: ...
    @property
    def b(self) -> list[int]: ...
    @property
    def distances(self) -> list[float]: ...
    @property
    def a_ids(self) -> list[str]: ...
    @property
    def b_ids(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def pairs(self) -> list[Tuple[str, str, float]]: ...
    def to_pandas(self) -> "pandas.DataFrame": ...
    def to_arrow(self) -> "pyarrow.Table": ...

class Matcher:
    """Party A's vector batch (with thresholds) and party B's, checked."""

    def __init__(self, batch_a: Message, batch_b: Message, **signatures: Unpack[Signatures]) -> None: ...
    @property
    def size_a(self) -> int: ...
    @property
    def size_b(self) -> int: ...
    @property
    def ed(self) -> int: ...
    @property
    def fingerprint(self) -> str: ...
    def link(self, rule: Optional[RuleName] = None) -> Linkage: ...
    def match_result(self, rule: Optional[RuleName] = None) -> str: ...

def match_parties(
    batches: Sequence[Union[bytes, str]],
    *,
    schema: Optional[Schema] = ...,
    merge_threshold: float = ...,
) -> dict[str, Any]: ...
def score(
    pairs: Union[Linkage, Iterable[Sequence[str]]],
    truth: Union[bytes, str, "os.PathLike[str]", Iterable[Sequence[str]]],
) -> dict[str, float]: ...

class RecordOwner:
    """One party's records under a linkage schema."""

    def __init__(
        self,
        source: Source,
        schema: Schema,
        *,
        seed: Optional[int] = None,
        date_formats: Optional[dict[str, str]] = None,
    ) -> None:
        """`date_formats`: this party's own format of each date field (field name ->
        format such as "MM/DD/YYYY"), over the schema's `format`."""
    @property
    def size(self) -> int: ...
    def __len__(self) -> int: ...
    @property
    def schema_fingerprint(self) -> str: ...
    def fields(self) -> list[dict[str, Any]]: ...
    def budget_split(self) -> list[dict[str, Any]]: ...
    def mine(self) -> str: ...
    @staticmethod
    def merge_bases(a: str, b: str, schema: Schema) -> str: ...
    # the same keywords as DataOwner.embed (the core's EmbedRequest), without thresholds
    def embed(self, shared: str, **options: Unpack[EmbedRequest]) -> bytes: ...
    def id_map_csv(self) -> Optional[str]: ...

class RecordMatcher:
    """The matcher of record batches (candidates, levels, EM fit made once)."""

    def __init__(self, schema: Schema, batch_a: bytes, batch_b: bytes, **signatures: Unpack[Signatures]) -> None: ...
    @property
    def size_a(self) -> int: ...
    @property
    def size_b(self) -> int: ...
    @property
    def private(self) -> bool: ...
    def weights(self) -> list[float]: ...
    def link(self, *, upper: Optional[float] = None, lower: Optional[float] = None) -> dict[str, Any]: ...
    def pairs_csv(
        self, *, upper: Optional[float] = None, lower: Optional[float] = None, review: Optional[str] = None
    ) -> str: ...

class Batch:
    """A vector batch, or rows of one, read and checked."""

    @staticmethod
    def open(path: Path, start: Optional[int] = None, end: Optional[int] = None) -> "Batch": ...
    @staticmethod
    def read(message: Message) -> "Batch": ...
    @property
    def party(self) -> str: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def size(self) -> int: ...
    def __len__(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def dim(self) -> int: ...
    @property
    def ed(self) -> Optional[int]: ...
    @property
    def transform(self) -> Optional[str]: ...
    @property
    def ids(self) -> list[str]: ...

class Reference:
    """Party B's batch as each Spark task keeps it: sparse rows, read in pieces."""

    @staticmethod
    def open(path: Path, chunk: int = 65536) -> "Reference": ...
    @property
    def size(self) -> int: ...
    def __len__(self) -> int: ...
    @property
    def ids(self) -> list[str]: ...

def check_batches(a: Batch, b: Batch) -> int: ...
def cutoff_bound(a: Batch, b: Batch, rule: Optional[RuleName] = None) -> Optional[Tuple[int, str]]: ...
def shard_candidates(
    a: Batch, b: Reference, offset: int, rule: Optional[RuleName] = None
) -> ScoredColumns: ...
def assign(
    a_rows: bytes,
    b_rows: bytes,
    distances: bytes,
    scores: bytes,
    rule: Optional[RuleName] = None,
    *,
    edits: Optional[bytes] = None,
    auto: Optional[Tuple[Tuple[int, str], int, int]] = None,
) -> Tuple[bytes, Optional[dict[str, Any]]]: ...

# the multi-party matcher in shards (gramlink/spark_parties.py)
def parties_check(
    paths: Sequence[Path], merge_threshold: Optional[float] = None
) -> list[Tuple[str, int]]: ...
def parties_both_ways(a: Batch, b: Batch, offset: int) -> Tuple[ScoredColumns, ScoredColumns]: ...
def parties_pair(
    paths: Tuple[Path, Path],
    offsets: Tuple[int, int],
    way: bytes,
    a_rows: bytes,
    b_rows: bytes,
    distances: bytes,
    scores: bytes,
    edits: bytes,
) -> Tuple[bytes, bytes, bytes]: ...
def parties_cluster(
    parties: list[str],
    offsets: list[int],
    x: bytes,
    y: bytes,
    scores: bytes,
    merge_threshold: Optional[float] = None,
) -> Tuple[bytes, bytes]: ...

class RecordBatchFile:
    """A record batch (GLRB) read from a file, as a Spark worker keeps it."""

    @staticmethod
    def open(path: Path) -> "RecordBatchFile": ...
    @property
    def size(self) -> int: ...
    def __len__(self) -> int: ...
    @property
    def party(self) -> str: ...
    @property
    def ids(self) -> list[str]: ...

def record_check(schema: Schema, a: RecordBatchFile, b: RecordBatchFile) -> None: ...
def record_shard(
    schema: Schema, a: RecordBatchFile, b: RecordBatchFile, start: int, end: int
) -> ShardColumns: ...
def record_link_shards(
    schema: Schema,
    rows_a: int,
    rows_b: int,
    a_rows: bytes,
    b_rows: bytes,
    levels: bytes,
    swapped: bytes,
    sample: bytes,
    rules: list[Tuple[str, int, list[str]]],
) -> dict[str, Any]: ...

# the multi-party record matcher in shards (gramlink/spark_parties.py, with a schema)
def parties_record_check(
    schema: Schema, paths: Sequence[Path], merge_threshold: Optional[float] = None
) -> Tuple[list[Tuple[str, int]], list[Tuple[int, int]]]: ...
def parties_record_shard(
    schema: Schema, a: RecordBatchFile, b: RecordBatchFile, start: int, end: int
) -> ShardColumns: ...
def parties_record_pair(
    schema: Schema,
    rows: Tuple[int, int],
    offsets: Tuple[int, int],
    a_rows: bytes,
    b_rows: bytes,
    levels: bytes,
    swapped: bytes,
    sample: bytes,
    rules: list[Tuple[str, int, list[str]]],
) -> Tuple[bytes, bytes, bytes, int, list[str]]: ...
