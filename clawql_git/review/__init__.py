"""Review of agent writes through proposal branches: proposals, acceptance (merge), reports."""
