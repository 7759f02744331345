// stratus-bench: each scenario prints Stratus's time, a baseline's, and the ratio of the two.

print("stratus-bench (release build expected; times are the fastest of 5 runs)")
RecordBenchmarks.run()
