// engine_cpu.cpp - (being written)
