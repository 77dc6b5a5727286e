print("caf-recorder: not written yet")
