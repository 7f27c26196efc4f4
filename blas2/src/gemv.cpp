// placeholder: being written (issue 3)
