"""The entry model: entries, drafts, validation, secret scanning, identity, path rules, times."""
