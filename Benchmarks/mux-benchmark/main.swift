print("mux-benchmark: not written yet")
