"""The CLI reference, generated from the click commands (README embeds it; a test checks it)."""

from __future__ import annotations

import click


def _walk(command: click.Command, path: list[str]) -> list[str]:
    ctx = click.Context(
        command,
        info_name=" ".join(path),
        terminal_width=100,
        max_content_width=100,
        help_option_names=["-h", "--help"],  # as the real `clawql` context passes down
    )
    lines = [f"### `{' '.join(path)}`", "", "```text", command.get_help(ctx).rstrip(), "```", ""]
    if isinstance(command, click.Group):
        for name in sorted(command.list_commands(ctx)):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                lines += _walk(sub, [*path, name])
    return lines


def render() -> str:
    """Markdown for every command's --help, depth first."""
    from clawql_git.cli import cli

    return "\n".join(_walk(cli, ["clawql"])).rstrip() + "\n"


START, END = "<!-- cli-reference:start -->\n", "<!-- cli-reference:end -->"


def update(readme: str) -> str:
    """``readme`` with the text between the reference markers regenerated."""
    head, rest = readme.split(START, 1)
    return head + START + render() + END + rest.split(END, 1)[1]


if __name__ == "__main__":
    import sys
    from pathlib import Path

    if sys.argv[1:2] == ["--update"]:
        target = Path(sys.argv[2])
        target.write_text(update(target.read_text()))
    else:
        print(render(), end="")
