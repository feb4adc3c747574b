"""The pool chart: each arm's contribution across the fused pool, and where the page was cut."""
