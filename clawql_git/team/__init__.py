"""Team memory over git remotes: clone/push/pull, protected remotes, branch checks."""
