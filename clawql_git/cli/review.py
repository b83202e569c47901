"""``clawql review ...``: proposal branches of a vault whose policy requires review."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from clawql_git.cli.options import json_option, open_vault, vault_option
from clawql_git.cli.output import emit_json, progress

reviewer_option = click.option(
    "--reviewer",
    help="Who reviews; recorded in the trailers. Default: the reviewer your signing key proves "
    "(keyed policy); git config user.name only while review is off.",
)


@click.group()
@vault_option
@click.pass_context
def review(ctx: click.Context, vault: str | None) -> None:
    """Review what agents propose: with `[policy] review = "required"` agent writes go to
    proposals/<agent>/<session> branches until a human accepts or rejects them."""
    ctx.obj = {"vault": vault}


@review.command("list")
@json_option
@click.pass_context
def list_(ctx: click.Context, as_json: bool) -> None:
    """Open proposal branches: agent, session, entry count, age."""
    from clawql_git.review.proposals import list_proposals

    found = list_proposals(open_vault(ctx).store)
    if as_json:
        emit_json([p.to_record() for p in found])
        return
    if not found:
        click.echo("no open proposals")
    for p in found:
        rec = p.to_record()
        click.echo(
            f"{p.branch}  agent {p.agent or '-'}  session {p.session or '-'}  "
            f"{rec['entries']} entr{'y' if rec['entries'] == 1 else 'ies'}  {rec['age']} old"
        )


@review.command()
@click.argument("branch")
@click.option("--no-recall", is_flag=True, help="Skip the recall-impact comparison (faster).")
@json_option
@click.pass_context
def show(ctx: click.Context, branch: str, no_recall: bool, as_json: bool) -> None:
    """Each entry BRANCH proposes: frontmatter, diff against main, validation, broken links,
    possible duplicates on main and the recall answers it would change."""
    from clawql_git.review.report import show as build

    with progress("reviewing", not as_json):
        report = build(open_vault(ctx), branch, recall_impact=not no_recall)
    if as_json:
        emit_json(report.to_record())
        return
    _print_report(report.to_record())


def _print_report(rec: dict[str, Any]) -> None:
    click.echo(f"{rec['branch']}  by {rec['agent'] or '-'} (session {rec['session'] or '-'})")
    count = len(rec["entries"])
    click.echo(
        f"{count} entr{'y' if count == 1 else 'ies'}, {rec['commits']} commit(s), "
        f"{rec['age']} old, tip git:{rec['tip']}"
    )
    for e in rec["entries"]:
        click.echo("")
        click.echo(f"## {e['path']}  ({e['change']}, {'valid' if e['valid'] else 'INVALID'})")
        for problem in e["problems"]:
            click.echo(f"  problem: {problem}")
        for link in e["broken_links"]:
            click.echo(f"  broken link: {link}")
        for d in e["duplicates"]:
            click.echo(f"  possible duplicate: {d['path']} ({d['reason']}, {d['similarity']})")
        if e["recall"]:
            r = e["recall"]
            rank = f"#{r['rank']}" if r["rank"] else "outside the top"
            click.echo(f"  recall {r['query']!r}: the entry would rank {rank}")
            for moved in r["displaced"]:
                after = f"#{moved['after']}" if moved["after"] else "out of the top"
                click.echo(f"    displaces {moved['path']} (#{moved['before']} -> {after})")
        click.echo(e["diff"].rstrip())
    for path in rec["other_changes"]:
        click.echo(f"warning: also changes {path}, which is not an entry: review it in git")
    for note in rec["notes"]:
        click.echo(f"note: {note}")


@review.command()
@click.argument("branch")
@reviewer_option
@json_option
@click.pass_context
def accept(ctx: click.Context, branch: str, reviewer: str | None, as_json: bool) -> None:
    """Merge BRANCH into main (a merge commit with MEMORY_REVIEW trailers naming the reviewer);
    the catalogs and the index follow; the branch is deleted (the merge keeps its commits)."""
    from clawql_git.review.merge import accept as do_accept

    outcome = do_accept(open_vault(ctx), branch, reviewer)
    _print_outcome(outcome.to_record(), as_json)


@review.command()
@click.argument("branch")
@click.option("--reason", required=True, help="Why the proposal is turned down (recorded).")
@reviewer_option
@json_option
@click.pass_context
def reject(
    ctx: click.Context, branch: str, reason: str, reviewer: str | None, as_json: bool
) -> None:
    """Turn BRANCH down: a MEMORY_REVIEW rejected event on the audit chain, the branch deleted,
    nothing merged into main."""
    from clawql_git.review.proposals import reject as do_reject

    outcome = do_reject(open_vault(ctx), branch, reason, reviewer)
    _print_outcome(outcome.to_record(), as_json)


@review.command()
@click.argument("state", type=click.Choice(["required", "off", "show"]))
@reviewer_option
@click.option("--exempt", multiple=True, help="An identity that writes to main (repeatable).")
@click.option("--allow-reviewer", "reviewers", multiple=True, help="Who may review (repeatable).")
@click.option(
    "--allowed-signers",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="SSH allowed-signers file: exempt ids and reviewers become keys (principals).",
)
@json_option
@click.pass_context
def policy(
    ctx: click.Context,
    state: str,
    reviewer: str | None,
    exempt: tuple[str, ...],
    reviewers: tuple[str, ...],
    allowed_signers: Path | None,
    as_json: bool,
) -> None:
    """Require review of agent writes (or stop requiring it): commits `[policy] review` into
    .clawql/vault.toml on main; while review is required only a reviewer may change it.
    `show` prints the policy in force (a hand-made weakening on main does not count)."""
    from clawql_git.review.proposals import (
        current_policy,
        reviewer_name,
        set_review_policy,
        sign_as_reviewer,
    )

    vault = open_vault(ctx)
    if state == "show":
        _print_policy(current_policy(vault.store).to_record(), as_json)
        return
    sign_as_reviewer(vault)
    sha = set_review_policy(
        vault,
        state == "required",
        reviewer_name(vault.store, reviewer),
        exempt=exempt or None,
        reviewers=reviewers or None,
        allowed_signers=allowed_signers.read_bytes() if allowed_signers else None,
    )
    if as_json:
        emit_json({"review": state, "commit": f"git:{sha}"})
    else:
        click.echo(f"review {state} (git:{sha})")


def _print_policy(rec: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(rec)
        return
    click.echo(f"review {rec['review']}, identities are {rec['identities']}")
    for key in ("review_exempt", "reviewers"):
        click.echo(f"  {key}: {', '.join(rec[key]) or '-'}")
    click.echo(f"  allowed_signers: {rec['allowed_signers'] or '-'}")
    for note in rec["notes"]:
        click.echo(f"note: {note}")


def _print_outcome(rec: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(rec)
        return
    for warning in rec["warnings"]:
        click.echo(f"warning: {warning}", err=True)
    ref = rec.get("merge_commit") or rec.get("audit_ref")
    click.echo(f"{rec['verdict']} {rec['branch']} by {rec['reviewer']}: {ref}")
    for path in rec["paths"]:
        click.echo(f"  {path}")
