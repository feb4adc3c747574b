"""The recall pack: what an agent would receive for the query, tier by tier, within a budget."""
