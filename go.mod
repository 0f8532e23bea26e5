module github.com/sharesim/sharesim

go 1.24

require pgregory.net/rapid v1.3.0

require go.yaml.in/yaml/v3 v3.0.4
