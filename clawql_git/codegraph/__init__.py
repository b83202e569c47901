"""CodeGraph: a tree-sitter index of a code repository (symbols, imports, calls, routes)."""
