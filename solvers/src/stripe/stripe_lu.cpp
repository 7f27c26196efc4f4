// stripe_lu.cpp - (being written)
