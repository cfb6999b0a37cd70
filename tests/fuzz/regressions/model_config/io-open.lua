return io.open("/etc/passwd")
