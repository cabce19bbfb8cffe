import os

manifest = {"manifest_version": 1, "device_name": "auto", "capabilities": {}}

# os.path is the platform's path module: its error names posixpath (ntpath on Windows).
separator = os.path.sp
