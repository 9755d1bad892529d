"""Cross-validation against MQSim and SSDsim."""
