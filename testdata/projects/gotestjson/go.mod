module example.com/gotestjson

go 1.26
