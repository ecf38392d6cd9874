"""The small core every stage may import: typed records, task and scenario files, manifests,
recorded answers (reading), errors, text positions, where things are."""
