"""gramlink: privacy-preserving record linkage with differentially private
gram bases, a binding of the Rust core (each role as in the CLI and the JS API).

Each data owner: ``DataOwner`` (``mine``), ``merge_bases``, ``embed`` (a
vector batch as bytes, with random pseudonyms as ids unless ``keep_ids=True``;
``id_map_csv()`` keeps the map back, ``unmap`` maps the matcher's pairs back
with it). The matcher: ``Matcher(batch_a, batch_b).link(rule)``; of more parties,
``match_parties([batch_a, batch_b, batch_c, ...])`` (clusters). Signed
batches: ``sign_keygen``, ``sign_batch``, ``verify_batch``, and the matchers'
``verify_a``/``signature_a``/``verify_b``/``signature_b`` (the CLI's files).
Scoring: ``score(linkage, truth)``. Whole records: ``RecordOwner``,
``RecordMatcher``. Errors: ``GramlinkError`` with the core's ``code``.
The matcher on Apache Spark: ``gramlink.spark``; of more parties,
``gramlink.spark_parties``.
"""

from ._errors import GramlinkError
from ._native import (
    Batch,
    DataOwner,
    Linkage,
    Matcher,
    RecordBatchFile,
    RecordMatcher,
    RecordOwner,
    Reference,
    assign,
    check_batches,
    cutoff_bound,
    defaults,
    fingerprint,
    keygen,
    match_parties,
    merge_bases,
    record_check,
    record_link_shards,
    record_shard,
    score,
    shard_candidates,
    sign_batch,
    sign_keygen,
    unmap,
    verify_batch,
)

__all__ = [
    "Batch",
    "DataOwner",
    "GramlinkError",
    "Linkage",
    "Matcher",
    "RecordBatchFile",
    "RecordMatcher",
    "RecordOwner",
    "Reference",
    "assign",
    "check_batches",
    "cutoff_bound",
    "defaults",
    "fingerprint",
    "keygen",
    "match_parties",
    "merge_bases",
    "record_check",
    "record_link_shards",
    "record_shard",
    "score",
    "shard_candidates",
    "sign_batch",
    "sign_keygen",
    "unmap",
    "verify_batch",
]
