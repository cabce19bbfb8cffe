manifest = {"manifest_version": 1, "device_name": "first", "capabilities": {}, "bogus": 1}
manifest = {"manifest_version": 1, "device_name": 2, "capabilities": {}}
