"""Pure statistics core: arrays in, frozen dataclasses out. No database, files or printing."""
