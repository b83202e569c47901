"""The derived search index: LanceDB tables built from a commit, embedders, vector cache."""
