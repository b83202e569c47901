"""Session distillation: a transcript (Claude Code JSONL, Markdown, plain text) turned into
the parts of one ``type: context`` entry (decided, rejected, in progress, blocked, next)."""
