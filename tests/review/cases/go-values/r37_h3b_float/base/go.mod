module example.com/temp

go 1.19
