return { name = os.getenv("HOME") }
