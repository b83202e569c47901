"""Onyx (open-source enterprise search, formerly Danswer): organisational knowledge beside the
vault, over its documented REST API."""

from clawql_git.onyx.client import (
    PERMISSIONS,
    OnyxClient,
    OnyxDocument,
    OnyxQuery,
    OnyxResult,
    OnyxUnavailable,
)

__all__ = [
    "PERMISSIONS",
    "OnyxClient",
    "OnyxDocument",
    "OnyxQuery",
    "OnyxResult",
    "OnyxUnavailable",
]
