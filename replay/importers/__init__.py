"""Importers: public benchmarks and hand-given holes as tasks (DevBench's instances and recorded
answers, SimCopilot's checkpoint files, holes given as line ranges).
"""
