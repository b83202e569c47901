"""OKF catalogs and the log: rendering (render) and incremental update along a commit (update)."""
