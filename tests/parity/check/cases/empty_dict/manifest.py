manifest = {}
