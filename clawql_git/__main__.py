"""``python -m clawql_git`` runs the CLI (the hooks use this form)."""

from clawql_git.cli import main

main()
