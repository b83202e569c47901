"""Recall: the pipeline (pipeline), the service a vault offers (service)."""
