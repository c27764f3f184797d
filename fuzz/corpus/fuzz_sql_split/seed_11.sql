

  SELECT 1  ;  
  SELECT 2