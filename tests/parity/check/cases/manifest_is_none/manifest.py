manifest = None
