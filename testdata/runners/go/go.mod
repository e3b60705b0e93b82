module example.com/runnersample

go 1.22
