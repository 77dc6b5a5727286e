print("caf-info: not written yet")
