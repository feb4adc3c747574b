"""The conflicts view: near-twin memories whose claims disagree, side by side, resolved in one step."""
