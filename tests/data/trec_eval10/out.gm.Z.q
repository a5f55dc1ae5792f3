Zmap                   	301	-1000000.0000
Zmap                   	302	-1000000.0000
Zmap                   	303	-1000000.0000
Zmap                   	all	-1000000.0000
Zgm_map                	all	0.9821
Zgm_bpref              	all	0.0056
