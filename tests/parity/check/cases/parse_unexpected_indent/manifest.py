import torch
    manifest = {}
