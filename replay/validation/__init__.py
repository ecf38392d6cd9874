"""The validation gate: which tests each hole selects, and which holes measure something."""
