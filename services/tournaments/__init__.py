"""Tournaments: Swiss and arena events played at tables of 2-5 seats, scored from each game's places."""
