"""Workspaces: several vaults mounted under names, recall over all of them."""
