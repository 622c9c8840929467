"""A local SLURM cluster for the tests: cluster.py (install/start/stop), fixtures.py, profile/."""
