"""The audit trail: the audit chain of reads and syncs, engine history, and verify."""
