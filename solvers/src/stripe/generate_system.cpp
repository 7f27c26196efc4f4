// generate_system.cpp - (being written)
