# Never imported: the case's stand-in Python (fake-python) runs instead.
