"""The proof of a pass: reading each selected test's own result from a channel the answer cannot forge."""
