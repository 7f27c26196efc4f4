// store.cpp - (being written)
