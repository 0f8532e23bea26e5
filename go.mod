module github.com/sharesim/sharesim

go 1.24
