# CRLF and a syntax error on line 4
manifest = {
    "manifest_version": 1,
    "device_name": "auto" "x" 5,
}
