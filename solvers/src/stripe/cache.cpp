// cache.cpp - (being written)
