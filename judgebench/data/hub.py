"""Hugging Face Hub datasets, streamed, with a fast and explicit failure when the Hub is away.

`datasets.load_dataset` retries for about 25 s before giving up offline. A researcher on a train
or a cluster node without egress deserves an answer in seconds that says what to do instead, so
we ask the Hub once, with a short timeout, before handing over to `datasets`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from judgebench.data.errors import DatasetError, HubUnreachableError

PROBE_TIMEOUT_S = 5.0


def _local_copy_advice(repo_id: str) -> str:
    return (
        "Use a local copy instead: on a machine with internet run\n"
        f"  huggingface-cli download --repo-type dataset {repo_id} --local-dir ./{repo_id.split('/')[-1]}\n"
        f"(or `judgebench data export --dataset hf:{repo_id} --out {repo_id.split('/')[-1]}.jsonl`),\n"
        "copy it here, and pass its folder or file to --dataset."
    )


def probe(repo_id: str, revision: str | None = None, timeout: float = PROBE_TIMEOUT_S) -> str:
    """Returns the dataset's commit sha (the fingerprint of a Hub dataset) or raises quickly."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        raise HubUnreachableError(f"HF_HUB_OFFLINE is set, so hf:{repo_id} cannot be fetched.\n"
                                  + _local_copy_advice(repo_id))
    from huggingface_hub import HfApi
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError

    try:
        info = HfApi().dataset_info(repo_id, revision=revision, timeout=timeout)
    except (RepositoryNotFoundError, GatedRepoError) as exc:
        raise DatasetError(f"hf:{repo_id} is not available on the Hub: {type(exc).__name__}. "
                           "Check the name, or log in with `huggingface-cli login` for gated data.") from None
    except HfHubHTTPError as exc:
        raise HubUnreachableError(f"The Hub answered with an error for hf:{repo_id}: {exc}.\n"
                                  + _local_copy_advice(repo_id)) from None
    except Exception as exc:  # connection refused, DNS failure, timeout: all mean "not reachable"
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        raise HubUnreachableError(f"Cannot reach the Hugging Face Hub for hf:{repo_id} ({reason}).\n"
                                  + _local_copy_advice(repo_id)) from None
    return info.sha or ""


def iter_hub_rows(repo_id: str, split: str, revision: str | None) -> Iterator[dict[str, Any]]:
    import datasets

    from judgebench.data.local import undecoded

    ds = datasets.load_dataset(repo_id, split=split, revision=revision, streaming=True)
    yield from undecoded(ds)
